#!/bin/bash
# syn-admin-prohibited (client eth0) and ../syn-admin-prohibited-router (router to-cli), one run:
# see ../tools/admin_prohib.sh (run as root, ~8 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/admin_prohib.sh" v4 "$D/syn-admin-prohibited.pcap" "$D/../syn-admin-prohibited-router/syn-admin-prohibited-router.pcap"
