#!/bin/bash
# paws-rejected-data-server.pcap is written by ../paws-rejected-data-client/gen.sh
# (VARIANT=problem), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../paws-rejected-data-client/gen.sh" "$@"
