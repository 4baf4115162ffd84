#!/bin/bash
# aq-sibling-server.pcap is written by ../aq-sibling-client/gen.sh
# (VARIANT=problem), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../aq-sibling-client/gen.sh" "$@"
