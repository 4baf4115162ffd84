#!/bin/bash
# nagle-router: write-write-read requests (50 B + 1000 B, 64 B reply, 30
# requests) through a router with 10 ms one-way delay (RTT 20 ms), captured
# IN THE ROUTER on its TUN device with `tcpdump -i tun0 -Q in` (raw IP link
# type): each packet is recorded once, when tools/tun_delay.py writes it back
# after its 10 ms delay, so every packet is seen 10 ms after it left its
# sender -- the timing of a capture point half-way along the path.
#   nagle-router.pcap    Nagle on (default)
#   nodelay-router.pcap  TCP_NODELAY
# Namespaces pdvB-mid-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5111.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-mid
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
one() { # NAME NODELAY
    vb_dr_down $P
    vb_dr_up $P 10 40 || return 1
    ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5111 --mode reqresp \
        --parts 1050 --resp-size 64 --timeout 30 &
    local srv=$!
    wait_listen $P-srv 5111 || return 1
    cap_start $P-rtr tun0 "$OUT_DIR/$1.pcap" 128 35 -Q in tcp port 5111
    ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.62.2.2 --port 5111 --mode reqresp \
        --parts 50,1000 --resp-size 64 --count 30 $([ $2 = 1 ] && echo --nodelay) --timeout 28
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one nagle-router 0
one nodelay-router 1
