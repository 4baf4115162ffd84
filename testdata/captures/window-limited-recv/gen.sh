#!/bin/bash
# window-limited-recv: the server sends 1 MiB to a client whose SO_RCVBUF
# is 65536 (set before connect: fixed buffer, no autotuning), through a
# router with 30 ms one-way delay (RTT 60 ms), no rate limit.
# GRO/TSO/GSO off on both hosts. Captures of the same run: the RECEIVER
# (client) eth0, -s 80 -> window-limited-recv.pcap; the SENDER (server) with
# `tcpdump -i any` (LINUX_SLL2), -s 96 -> window-limited-sender-any.pcap.
# Namespaces pdvB-wl-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5107.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-wl
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 30 40 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5107 --mode send --bytes 1048576 --timeout 30 &
SRV=$!
wait_listen $P-srv 5107 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/window-limited-recv.pcap" 80 35 tcp port 5107
cap_start $P-srv any "$OUT_DIR/window-limited-sender-any.pcap" 96 35 tcp port 5107
ip netns exec $P-cli timeout 35 $PY $VBAPP client --addr 10.62.2.2 --port 5107 --mode recv --rcvbuf 65536 --timeout 30
wait $SRV
cap_stop_all
