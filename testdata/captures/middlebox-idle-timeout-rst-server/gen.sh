#!/bin/bash
# middlebox-idle-timeout-rst-server.pcap is written by ../middlebox-idle-timeout-client/gen.sh
# (VARIANT=rst), which captures all the vantage points of one run at once; this wrapper runs it.
# Run as root.
VARIANT=rst exec "$(dirname "$(readlink -f "$0")")/../middlebox-idle-timeout-client/gen.sh" "$@"
