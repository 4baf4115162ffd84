#!/bin/bash
# rto-backoff-*: the server stops answering in the middle of an upload; the
# client's retransmission timer backs off (issue 19, case 3).
# client 10.92.1.2 -- router (tun_shape.py, no option: a plain 15 ms each way, RTT 30 ms) --
# server 10.92.2.2:5193. The client sends 2 MiB (vbapp.py send); the server
# reads (recv). On the server, nft (input hook) drops every packet from the
# client to port 5193 once 150 kbytes of them have passed (quota over
# 150 kbytes): from then on the server receives nothing and so sends nothing.
# The client resends its oldest unacknowledged segment on its retransmission
# timer with exponential backoff; the run is cut 20 s after the connect.
# TSO/GSO/GRO off; default sysctls (tcp_retries2 15; congestion control bbr,
# this machine's default). The captures stop before the server is killed. One run, two captures
# on the client's eth0, -s 128:
#   ../rto-backoff-oneway/rto-backoff-oneway.pcap  tcpdump -Q out (the client's
#                                                  packets only: no SYN-ACK, no ACK)
#   ../rto-backoff-twoway/rto-backoff-twoway.pcap  both directions
# Namespaces pdw-rto-{cli,rtr,srv}. Run as root; ~25 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-rto
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT
pdw_dr_down $P
pdw_dr_up $P 15 35 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-srv nft -f - <<'NFT'
table ip pdw_rto {
    chain input {
        type filter hook input priority 0; policy accept;
        ip saddr 10.92.1.2 tcp dport 5193 quota over 150 kbytes counter drop
    }
}
NFT
ip netns exec $P-srv timeout 30 $PY $VBAPP server --addr 10.92.2.2 --port 5193 --mode recv --timeout 22 &
SRV=$!
wait_listen $P-srv 5193 || exit 1
OUT_DIR=$CAPS/rto-backoff-oneway
cap_start $P-cli eth0 "$CAPS/rto-backoff-oneway/rto-backoff-oneway.pcap" 128 30 -Q out tcp port 5193
OUT_DIR=$CAPS/rto-backoff-twoway
cap_start $P-cli eth0 "$CAPS/rto-backoff-twoway/rto-backoff-twoway.pcap" 128 30 tcp port 5193
ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.92.2.2 --port 5193 --mode send --bytes 2097152 --timeout 20
ip netns exec $P-cli ss -tni dst 10.92.2.2 | sed 's/^/ss: /'
ip netns exec $P-srv nft list table ip pdw_rto | grep counter
cap_stop_all # before the server goes away (its FIN would still leave)
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
rm -f "$CAPS"/rto-backoff-*/*.pcap.log
