#!/bin/bash
# syn-admin-prohibited6: see ../tools/admin_prohib.sh v6 (run as root, ~8 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/admin_prohib.sh" v6 "$D/syn-admin-prohibited6.pcap"
