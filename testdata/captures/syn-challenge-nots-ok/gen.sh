#!/bin/bash
# syn-challenge-nots-ok: see ../tools/tw_nots.sh ok (run as root, ~5 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/tw_nots.sh" ok "$D/syn-challenge-nots-ok.pcap"
