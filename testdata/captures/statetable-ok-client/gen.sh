#!/bin/bash
# statetable-ok-client.pcap is written by ../statetable-full-client/gen.sh (VARIANT=ok SITE=router), which captures all the vantage points of one run at
# once; this wrapper runs it. Run as root.
VARIANT=ok SITE=router exec "$(dirname "$(readlink -f "$0")")/../statetable-full-client/gen.sh" "$@"
