#!/bin/bash
# reset-stale-connection-ok-client.pcap is written by ../reset-stale-connection-client/gen.sh
# (VARIANT=ok), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../reset-stale-connection-client/gen.sh" "$@"
