#!/bin/bash
# lost-nosack-stream-ok-client.pcap is written by ../lost-nosack-stream-client/gen.sh (VARIANT=ok), which captures all the vantage
# points of one run at once; this wrapper runs it. Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../lost-nosack-stream-client/gen.sh" "$@"
