#!/bin/bash
# bulk-healthy: server sends 2 MB (2097152 B) to the client through the delay router
# (10 ms one way, RTT 20 ms), no rate limit (tun_delay.py forwards ~130+
# Mbit/s without loss), default socket buffers and sysctls.
# TSO/GSO off on the server eth0. Capture on the SENDER (server) eth0, -s 80.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-bulk
trap 'cap_stop_all 2>/dev/null; dr_down $P >/dev/null' EXIT
dr_down $P >/dev/null
dr_up $P 10 40 || exit 1
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.88.2.2 --port 5008 --mode send --bytes 2097152 --timeout 30 &
SRV=$!
wait_listen $P-srv 5008 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/bulk-healthy.pcap" 80 35 tcp port 5008
ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.88.2.2 --port 5008 --mode recv --timeout 30
wait $SRV
cap_stop_all
