#!/bin/bash
# zero-window-recv6: IPv6, the receiver (client, SO_RCVBUF=4096 before
# connect) reads 4096 B every 100 ms and stops reading for 1.5 s after
# 100000 B and after 200000 B; the server sends 300000 B. Router with 5 ms
# one-way delay (RTT 10 ms). GRO/TSO/GSO off on both hosts.
# Capture on the RECEIVER (client) eth0, -s 96.
# Namespaces pdvB-zw-{cli,rtr,srv}; [fd62::1:2] -> [fd62::2:2]:5106.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-zw
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 5 40 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr fd62::2:2 --port 5106 --mode send --bytes 300000 --timeout 30 &
SRV=$!
wait_listen $P-srv 5106 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/zero-window-recv6.pcap" 96 35 tcp port 5106
ip netns exec $P-cli timeout 35 $PY $VBAPP client --addr fd62::2:2 --port 5106 --mode recv --rcvbuf 4096 \
    --read-chunk 4096 --read-interval 0.1 --pauses 100000:1.5,200000:1.5 --timeout 30
wait $SRV
cap_stop_all
