#!/bin/bash
# churn-short-lan-server.pcap.gz is written by ../churn-short-lan-client/gen.sh (DELAY=0 N=1000 RATE=200), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
DELAY=0 N=1000 RATE=200 exec "$(dirname "$(readlink -f "$0")")/../churn-short-lan-client/gen.sh" "$@"
