#!/bin/bash
# reset-abort (client eth0) and ../reset-abort-server (server eth0), one run:
# see ../tools/reset_abort.sh abort (run as root, ~4 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/reset_abort.sh" abort "$D/reset-abort.pcap" "$D/../reset-abort-server/reset-abort-server.pcap"
