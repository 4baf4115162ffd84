#!/bin/bash
# wscale-off-sender: window scaling disabled on the data SENDER only: the
# client namespace has net.ipv4.tcp_window_scaling=0 (its SYN has no WS
# option, so the server's SYN-ACK carries none either) and the client
# uploads 1.5 MB to the server through a router with 20 ms one-way delay
# (RTT 40 ms). GRO/TSO/GSO off. Capture on the SENDER (client) eth0, -s 80.
# Namespaces pdvB-ws-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5108.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-ws
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 20 40 || exit 1
ip netns exec $P-cli sysctl -qw net.ipv4.tcp_window_scaling=0
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5108 --mode recv --timeout 30 &
SRV=$!
wait_listen $P-srv 5108 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/wscale-off-sender.pcap" 80 35 tcp port 5108
ip netns exec $P-cli timeout 35 $PY $VBAPP client --addr 10.62.2.2 --port 5108 --mode send --bytes 1572864 --timeout 30
wait $SRV
cap_stop_all
