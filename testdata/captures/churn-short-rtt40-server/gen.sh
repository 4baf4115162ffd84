#!/bin/bash
# churn-short-rtt40-server.pcap.gz is written by ../churn-short-lan-client/gen.sh (DELAY=20 N=300 RATE=50), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
DELAY=20 N=300 RATE=50 exec "$(dirname "$(readlink -f "$0")")/../churn-short-lan-client/gen.sh" "$@"
