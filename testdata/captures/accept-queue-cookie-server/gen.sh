#!/bin/bash
# accept-queue-cookie-server.pcap is written by ../accept-queue-cookie-client/gen.sh
# (VARIANT=problem), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=problem exec "$(dirname "$(readlink -f "$0")")/../accept-queue-cookie-client/gen.sh" "$@"
