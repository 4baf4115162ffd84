#!/bin/bash
# statetable-full-server.pcap is written by ../statetable-full-client/gen.sh (VARIANT=problem SITE=server), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
VARIANT=problem SITE=server exec "$(dirname "$(readlink -f "$0")")/../statetable-full-client/gen.sh" "$@"
