#!/bin/bash
# aq-synretry-server.pcap is written by ../aq-synretry-client/gen.sh
# (VARIANT=late), which captures all the vantage points of one run at once; this wrapper runs
# it. Run as root.
VARIANT=late exec "$(dirname "$(readlink -f "$0")")/../aq-synretry-client/gen.sh" "$@"
