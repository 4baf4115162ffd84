#!/bin/bash
# syn-admin-prohibited-softerr: see ../tools/admin_prohib.sh retry (run as root, ~22 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/admin_prohib.sh" retry "$D/syn-admin-prohibited-softerr.pcap"
