#!/bin/bash
# rto-backoff-*: the server stops answering in the middle of a connection; the
# client's retransmission timer backs off (issue 19, case 3).
# client 10.92.1.2 -- router (tun_shape.py, no option: a plain 15 ms each way,
# RTT 30 ms) -- server 10.92.2.2. On the server, nft (input hook) drops every
# packet from the client to the port once some bytes of them have passed
# (quota over N kbytes): from then on the server receives nothing and so sends
# nothing. The client resends its oldest unacknowledged segment on its
# retransmission timer with exponential backoff until its application gives up
# (20 s). TSO/GSO/GRO off; default sysctls (tcp_retries2 15; congestion control
# bbr, this machine's default). The captures stop before the server is killed.
# Two runs, each captured twice on the client's eth0, -s 128:
#   bulk upload (vbapp.py send, 2 MiB; quota 150 kbytes; port 5193):
#     ../rto-backoff-oneway/rto-backoff-oneway.pcap   tcpdump -Q out (the client's
#                                                      packets only: no SYN-ACK, no ACK)
#     ../rto-backoff-twoway/rto-backoff-twoway.pcap   both directions
#   requests of 200 B every 0.1 s, answers of 300 B (vbapp.py reqresp;
#   quota 2 kbytes; port 5197): the resent segment is the last one sent
#     ../rto-backoff-tail-oneway/rto-backoff-tail-oneway.pcap   -Q out
#     ../rto-backoff-tail-twoway/rto-backoff-tail-twoway.pcap   both directions
# Namespaces pdw-rto-{cli,rtr,srv}. Run as root; ~50 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-rto
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT

run() { # run NAME_ONEWAY NAME_TWOWAY PORT QUOTA_KBYTES SERVER_ARGS CLIENT_ARGS
    local O=$1 T=$2 PORT=$3 Q=$4 SARGS=$5 CARGS=$6
    pdw_dr_down $P
    pdw_dr_up $P 15 35 || exit 1
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv nft -f - <<NFT
table ip pdw_rto {
    chain input {
        type filter hook input priority 0; policy accept;
        ip saddr 10.92.1.2 tcp dport $PORT quota over $Q kbytes counter drop
    }
}
NFT
    ip netns exec $P-srv timeout 30 $PY $VBAPP server --addr 10.92.2.2 --port $PORT $SARGS --timeout 22 &
    local SRV=$!
    wait_listen $P-srv $PORT || exit 1
    OUT_DIR=$CAPS/$O; cap_start $P-cli eth0 "$CAPS/$O/$O.pcap" 128 30 -Q out tcp port $PORT
    OUT_DIR=$CAPS/$T; cap_start $P-cli eth0 "$CAPS/$T/$T.pcap" 128 30 tcp port $PORT
    ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.92.2.2 --port $PORT $CARGS --timeout 20
    ip netns exec $P-cli ss -tni dst 10.92.2.2 | sed 's/^/ss: /'
    ip netns exec $P-srv nft list table ip pdw_rto | grep counter
    cap_stop_all # before the server goes away (its FIN would still leave)
    kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
    rm -f "$CAPS/$O/$O.pcap.log" "$CAPS/$T/$T.pcap.log"
}
run rto-backoff-oneway rto-backoff-twoway 5193 150 "--mode recv" "--mode send --bytes 2097152"
run rto-backoff-tail-oneway rto-backoff-tail-twoway 5197 2 "--mode reqresp --parts 200 --resp-size 300" \
    "--mode reqresp --parts 200 --resp-size 300 --count 100 --think-ms 100"
