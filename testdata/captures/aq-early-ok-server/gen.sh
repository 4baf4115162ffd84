#!/bin/bash
# aq-early-ok-server.pcap is written by ../aq-early-client/gen.sh
# (VARIANT=ok), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../aq-early-client/gen.sh" "$@"
