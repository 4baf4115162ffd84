#!/bin/bash
# reset-abort-alert-client (client eth0) and ../reset-abort-alert-server (server eth0), one run:
# see ../tools/reset_abort.sh abort (run as root, ~4 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/reset_abort.sh" abort "$D/reset-abort-alert-client.pcap" "$D/../reset-abort-alert-server/reset-abort-alert-server.pcap"
