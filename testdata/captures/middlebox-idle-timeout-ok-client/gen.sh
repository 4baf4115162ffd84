#!/bin/bash
# middlebox-idle-timeout-ok-client.pcap is written by ../middlebox-idle-timeout-client/gen.sh
# (VARIANT=ok), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=ok exec "$(dirname "$(readlink -f "$0")")/../middlebox-idle-timeout-client/gen.sh" "$@"
