#!/bin/bash
# synqueue-cookies-server.pcap is written by ../synqueue-full-server/gen.sh (VARIANT=cookies), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
VARIANT=cookies exec "$(dirname "$(readlink -f "$0")")/../synqueue-full-server/gen.sh" "$@"
