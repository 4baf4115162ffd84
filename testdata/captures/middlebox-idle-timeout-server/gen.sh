#!/bin/bash
# middlebox-idle-timeout-server.pcap is written by ../middlebox-idle-timeout-client/gen.sh
# (VARIANT=drop), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=drop exec "$(dirname "$(readlink -f "$0")")/../middlebox-idle-timeout-client/gen.sh" "$@"
