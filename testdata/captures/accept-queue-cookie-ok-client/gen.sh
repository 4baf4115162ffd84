#!/bin/bash
# accept-queue-cookie-ok-client.pcap is written by ../accept-queue-cookie-client/gen.sh
# (VARIANT=ok), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../accept-queue-cookie-client/gen.sh" "$@"
