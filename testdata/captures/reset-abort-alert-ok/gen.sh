#!/bin/bash
# reset-abort-alert-ok: see ../tools/reset_abort.sh fin (run as root, ~4 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/reset_abort.sh" fin "$D/reset-abort-alert-ok.pcap"
