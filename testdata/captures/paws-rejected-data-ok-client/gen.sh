#!/bin/bash
# paws-rejected-data-ok-client.pcap is written by ../paws-rejected-data-client/gen.sh
# (VARIANT=ok), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../paws-rejected-data-client/gen.sh" "$@"
