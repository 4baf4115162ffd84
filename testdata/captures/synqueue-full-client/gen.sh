#!/bin/bash
# synqueue-full-client.pcap is written by ../synqueue-full-server/gen.sh (VARIANT=problem), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../synqueue-full-server/gen.sh" "$@"
