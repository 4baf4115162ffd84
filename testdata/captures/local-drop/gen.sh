#!/bin/bash
# local-drop: the client sends 1.5 MB (1572864 B) to the server through the
# delay router (5 ms one way, RTT ~10 ms + queueing). The client's own eth0
# has a root qdisc that drops: tbf rate 20mbit burst 4k limit 6000 (about 4
# full-size packets of queue). TSO/GSO off on the client eth0, default
# sysctls (SACK on; congestion control bbr, inherited by new namespaces here). Captures (-s 96, headers only), same run:
#   local-drop-sender.pcap   on the client (sender) eth0: tcpdump's tap sits
#                            after the qdisc, so a qdisc drop is never captured
#   local-drop-receiver.pcap on the server (receiver) eth0
# The qdisc statistics (dropped count) are written to tc-stats.txt.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdvD_lib.sh"
P=pdvD-ld
trap 'cap_stop_all 2>/dev/null; pdvd_down $P' EXIT
pdvd_down $P
pdvd_up $P 5 40 || exit 1
ip netns exec $P-cli ethtool -K eth0 tso off gso off >/dev/null
tc -n $P-cli qdisc add dev eth0 root tbf rate 20mbit burst 4k limit 6000
ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.64.2.2 --port 5101 --mode recv --timeout 30 &
SRV=$!
wait_listen $P-srv 5101 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/local-drop-sender.pcap" 96 35 tcp port 5101
cap_start $P-srv eth0 "$OUT_DIR/local-drop-receiver.pcap" 96 35 tcp port 5101
ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.64.2.2 --port 5101 --mode send --bytes 1572864 --timeout 30
wait $SRV
{ tc -n $P-cli -s qdisc show dev eth0; ip netns exec $P-cli nstat -az TcpRetransSegs TcpExtTCPSackRecovery TcpExtTCPLostRetransmit; } > "$OUT_DIR/tc-stats.txt"
cap_stop_all
