#!/bin/bash
# pmtu-client-view: client - r1 - r2 - server, r1<->r2 MTU = MID (default
# 1280 for FAM=4, 1300 for FAM=6). The server sends 300000 B to the client;
# r2 answers the first full-size DF packets with ICMP frag-needed / PTB and
# the server lowers its segment size. TSO/GSO off on the server eth0.
# Two captures of the same run:
#   NAME-client.pcap : CLIENT (receiver) eth0, Ethernet, -s 96
#   NAME-router.pcap : `tcpdump -i any` in r2 (LINUX_SLL2, -s 128): sees the
#                      big packets arrive, the ICMP it sends, the small ones.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdv_chain.sh"
FAM=${FAM:-4}
P=pdvC-pm$FAM
if [ "$FAM" = 6 ]; then MID=${MID:-1300}; SADDR=fd63::2:2; NAME=pmtu6-$MID; else MID=${MID:-1280}; SADDR=10.63.2.2; NAME=pmtu4-$MID; fi
trap 'cap_stop_all 2>/dev/null; pdv_chain_down $P' EXIT
pdv_chain_down $P
pdv_chain_up $P $MID || exit 1
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null
ip netns exec $P-srv timeout 20 $PY $APP server --addr $SADDR --port 5063 --mode send --bytes 300000 --timeout 15 &
SRV=$!
wait_listen $P-srv 5063 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/$NAME-client.pcap" 96 20 "tcp port 5063 or icmp or icmp6"
cap_start $P-r2 any "$OUT_DIR/$NAME-router.pcap" 128 20 "tcp port 5063 or icmp or (icmp6 and ip6[40] < 128)"
ip netns exec $P-cli timeout 20 $PY $APP client --addr $SADDR --port 5063 --mode recv --timeout 15
wait $SRV
cap_stop_all
exit 0
