#!/bin/bash
# rto-outage: the server sends 1 MiB to the client through a router with
# 10 ms one-way delay (RTT 20 ms) and a 10 Mbit/s tbf on the client-facing
# link; 0.3 s after the client starts, nft in the router drops EVERY data
# packet from the server for 300 ms (a path outage: no duplicate ACKs can
# come back, so only the retransmission timer can recover). Default sysctls.
# TSO/GSO/GRO off. Two captures of the same run, -s 96:
#   rto-outage.pcap         SENDER (server) eth0
#   rto-outage-client.pcap  RECEIVER (client) eth0
# Namespaces pdvB-rto-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5103.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-rto
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 10 40 || exit 1
ip netns exec $P-rtr tc qdisc add dev to-cli root tbf rate 10mbit burst 20kb latency 100ms
ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdvb_loss {
    chain dropper { type filter hook forward priority 0; policy accept; }
}
NFT
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv timeout 40 $PY $VBAPP server --addr 10.62.2.2 --port 5103 --mode send --bytes 1048576 --timeout 35 &
SRV=$!
wait_listen $P-srv 5103 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/rto-outage.pcap" 96 40 tcp port 5103
cap_start $P-cli eth0 "$OUT_DIR/rto-outage-client.pcap" 96 40 tcp port 5103
( sleep 0.3
  ip netns exec $P-rtr nft add rule ip pdvb_loss dropper iifname tun0 oifname to-cli ip saddr 10.62.2.2 \
      tcp sport 5103 meta length \> 200 counter drop
  sleep 0.3
  ip netns exec $P-rtr nft list chain ip pdvb_loss dropper | grep counter
  ip netns exec $P-rtr nft flush chain ip pdvb_loss dropper ) &
DROPPER=$!
ip netns exec $P-cli timeout 40 $PY $VBAPP client --addr 10.62.2.2 --port 5103 --mode recv --timeout 35
wait $SRV; wait $DROPPER
cap_stop_all
