#!/bin/bash
# keepalive-probes: the client sets SO_KEEPALIVE with TCP_KEEPIDLE=2,
# TCP_KEEPINTVL=1, TCP_KEEPCNT=9, sends one 200 B request (300 B answer),
# stays idle 6 s, sends a second request and closes. Router with 10 ms
# one-way delay. Capture on the CLIENT eth0, -s 96. Two runs:
#   keepalive-answered.pcap  probes answered (they come every TCP_KEEPIDLE = 2 s)
#   keepalive-dropped.pcap   nft on the server drops the client's bare ACKs
#                            (the probes) from 1.5 s to 5.5 s: unanswered
#                            probes every TCP_KEEPINTVL = 1 s, then the
#                            second request still works
# Namespaces pdvB-ka-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5104.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-ka
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
one() { # NAME DROP
    vb_dr_down $P
    vb_dr_up $P 10 30 || return 1
    ip netns exec $P-srv timeout 25 $PY $VBAPP server --addr 10.62.2.2 --port 5104 --mode keepalive \
        --parts 200 --resp-size 300 --timeout 20 &
    local srv=$!
    wait_listen $P-srv 5104 || return 1
    cap_start $P-cli eth0 "$OUT_DIR/$1.pcap" 96 25 tcp port 5104
    if [ $2 = 1 ]; then
        ip netns exec $P-srv nft -f - <<'NFT'
table ip pdvb_ka {
    chain inp { type filter hook input priority 0; policy accept; }
}
NFT
        ( sleep 1.5
          ip netns exec $P-srv nft add rule ip pdvb_ka inp ip saddr 10.62.1.2 tcp dport 5104 \
              tcp flags == ack ip length 52 counter drop
          sleep 4; ip netns exec $P-srv nft flush chain ip pdvb_ka inp ) &
    fi
    ip netns exec $P-cli timeout 20 $PY $VBAPP client --addr 10.62.2.2 --port 5104 --mode keepalive \
        --parts 200 --resp-size 300 --idle 6 --ka-idle 2 --ka-intvl 1 --ka-cnt 9 --timeout 18
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one keepalive-answered 0
one keepalive-dropped 1
