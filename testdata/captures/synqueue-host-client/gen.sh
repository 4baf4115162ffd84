#!/bin/bash
# synqueue-host-client.pcap and its host.tgz are written by ../synqueue-host-server/gen.sh, which
# captures both vantage points of one run at once; this wrapper runs it. Run as root.
exec "$(dirname "$(readlink -f "$0")")/../synqueue-host-server/gen.sh" "$@"
