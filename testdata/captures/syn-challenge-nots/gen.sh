#!/bin/bash
# syn-challenge-nots (server eth0) and ../syn-challenge-nots-router (router to-srv), one run:
# see ../tools/tw_nots.sh shift (run as root, ~5 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/tw_nots.sh" shift "$D/syn-challenge-nots.pcap" "$D/../syn-challenge-nots-router/syn-challenge-nots-router.pcap"
