#!/bin/bash
# rto-min-lowered: the retransmission timer backing off from a lowered RTO
# floor (advice audit row 23: the 200 ms default floor must not decide what a
# capture shows by itself). The same run as ../rto-backoff-twoway (the server
# stops receiving in the middle of an upload), on a short path, with the
# client's route to the server carrying `rto_min 20ms` (iproute2 locks it; it
# overrides net.ipv4.tcp_rto_min_us): the client's timeouts start near 20 ms
# plus the RTT and double from there, so the first ones are far below 200 ms.
# client 10.92.1.2 -- router (tun_shape.py, no option: a plain 2 ms each way)
# -- server 10.92.2.2:5198. On the server, nft (input hook) drops every packet
# from the client to the port once 150 kbytes of them have passed. The client
# uploads 2 MiB (vbapp.py send) and gives up after 8 s. TSO/GSO/GRO off;
# default sysctls otherwise. Capture: client eth0, both directions, -s 128.
# Namespaces pdw-rtomin-{cli,rtr,srv}. Run as root; ~15 s.
set -u
DIR=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$DIR")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-rtomin
N=rto-min-lowered
PORT=5198
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT
pdw_dr_down $P
pdw_dr_up $P 2 20 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip -n $P-cli route replace 10.92.2.0/24 via 10.92.1.1 dev eth0 rto_min 20ms
ip -n $P-cli route show
ip netns exec $P-srv nft -f - <<NFT
table ip pdw_rtomin {
    chain input {
        type filter hook input priority 0; policy accept;
        ip saddr 10.92.1.2 tcp dport $PORT quota over 150 kbytes counter drop
    }
}
NFT
ip netns exec $P-srv timeout 20 $PY $VBAPP server --addr 10.92.2.2 --port $PORT --mode recv --timeout 12 &
SRV=$!
wait_listen $P-srv $PORT || exit 1
OUT_DIR=$DIR; cap_start $P-cli eth0 "$DIR/$N.pcap" 128 20 tcp port $PORT
ip netns exec $P-cli timeout 20 $PY $VBAPP client --addr 10.92.2.2 --port $PORT --mode send --bytes 2097152 --timeout 8
ip netns exec $P-cli ss -tni dst 10.92.2.2 | sed 's/^/ss: /'
ip netns exec $P-srv nft list table ip pdw_rtomin | grep counter
cap_stop_all
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
cat "$DIR/$N.pcap.log" 2>/dev/null; rm -f "$DIR/$N.pcap.log"
