#!/bin/bash
# paws-nosack-stream-client.pcap is written by ../lost-nosack-stream-client/gen.sh (VARIANT=paws), which captures all the vantage
# points of one run at once; this wrapper runs it. Run as root.
VARIANT=paws exec "$(dirname "$(readlink -f "$0")")/../lost-nosack-stream-client/gen.sh" "$@"
