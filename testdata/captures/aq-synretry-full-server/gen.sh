#!/bin/bash
# aq-synretry-full-server.pcap is written by ../aq-synretry-client/gen.sh
# (VARIANT=full), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=full exec "$(dirname "$(readlink -f "$0")")/../aq-synretry-client/gen.sh" "$@"
