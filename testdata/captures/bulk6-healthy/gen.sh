#!/bin/bash
# bulk6-healthy: a healthy IPv6 bulk transfer, headers only (-s 96): the
# server sends 1 MiB to the client through a router with 10 ms one-way
# delay (RTT 20 ms), no loss, default buffers. TSO/GSO/GRO off.
#   bulk6-sender.pcap    SENDER (server) eth0
#   bulk6-receiver.pcap  RECEIVER (client) eth0, same run
# Namespaces pdvB-b6-{cli,rtr,srv}; [fd62::1:2] -> [fd62::2:2]:5110.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-b6
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 10 40 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr fd62::2:2 --port 5110 --mode send --bytes 1048576 --timeout 30 &
SRV=$!
wait_listen $P-srv 5110 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/bulk6-sender.pcap" 96 35 tcp port 5110
cap_start $P-cli eth0 "$OUT_DIR/bulk6-receiver.pcap" 96 35 tcp port 5110
ip netns exec $P-cli timeout 35 $PY $VBAPP client --addr fd62::2:2 --port 5110 --mode recv --timeout 30
wait $SRV
cap_stop_all
