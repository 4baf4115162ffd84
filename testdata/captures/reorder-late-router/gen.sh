#!/bin/bash
# reorder-late-router.pcap is written by ../reorder-late-client/gen.sh (VARIANT=problem), which captures all the vantage
# points of one run at once; this wrapper runs it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../reorder-late-client/gen.sh" "$@"
