#!/bin/bash
# reset-unread-data-ok-server.pcap is written by ../reset-unread-data-client/gen.sh (VARIANT=ok),
# which captures all the vantage points of one run at once; this wrapper runs it. Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../reset-unread-data-client/gen.sh" "$@"
