#!/bin/bash
# synqueue-ok-server.pcap is written by ../synqueue-full-server/gen.sh (VARIANT=ok), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../synqueue-full-server/gen.sh" "$@"
