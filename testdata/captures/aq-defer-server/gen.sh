#!/bin/bash
# aq-defer-server.pcap is written by ../aq-defer-client/gen.sh
# (VARIANT=problem), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../aq-defer-client/gen.sh" "$@"
