#!/bin/bash
# pmtu-false-ok: see ../tools/pmtu_false.sh ok (run as root, ~12 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/pmtu_false.sh" ok "$D/pmtu-false-ok.pcap"
