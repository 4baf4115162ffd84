#!/bin/bash
# pmtu-false-loss (client eth0) and ../pmtu-false-loss-sender (server eth0), one run:
# see ../tools/pmtu_false.sh (run as root, ~12 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/pmtu_false.sh" loss "$D/pmtu-false-loss.pcap" "$D/../pmtu-false-loss-sender/pmtu-false-loss-sender.pcap"
