#!/bin/bash
# reorder-late-healthy-client.pcap is written by ../reorder-late-client/gen.sh (VARIANT=ok), which captures all the vantage
# points of one run at once; this wrapper runs it. Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../reorder-late-client/gen.sh" "$@"
