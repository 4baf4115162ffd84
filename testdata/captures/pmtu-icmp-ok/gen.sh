#!/bin/bash
# pmtu-icmp-ok: client - r1 - r2 - server; every link MTU 1500 except
# r1<->r2 = 1400. The server sends 500 KB to the client; r2 answers the first
# 1500-byte DF packets with ICMP dest-unreachable/frag-needed (MTU 1400) and
# the server drops to 1400-byte packets. TSO/GSO off on the server eth0.
# Capture on the SERVER eth0.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-pmtu
FAM=${FAM:-4}
if [ "$FAM" = 6 ]; then SADDR=fd88::2:2; NAME=pmtu6-icmp-ok; else SADDR=10.88.2.2; NAME=pmtu-icmp-ok; fi
trap 'cap_stop_all 2>/dev/null; chain_down $P' EXIT
chain_down $P
chain_up $P 1400 || exit 1
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 20 $PY $APP server --addr $SADDR --port 5009 --mode send --bytes 512000 --timeout 15 &
SRV=$!
wait_listen $P-srv 5009 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/$NAME.pcap" 128 20 "tcp port 5009 or icmp or icmp6"
ip netns exec $P-cli timeout 20 $PY $APP client --addr $SADDR --port 5009 --mode recv --timeout 15
wait $SRV
cap_stop_all
