#!/bin/bash
# syn-admin-prohibited-ok: see ../tools/admin_prohib.sh ok (run as root, ~3 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/admin_prohib.sh" ok "$D/syn-admin-prohibited-ok.pcap"
