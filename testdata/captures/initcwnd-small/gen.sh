#!/bin/bash
# initcwnd-small: 3 requests (200 B) each answered with 100000 B, 500 ms
# think time, through a router with 10 ms one-way delay (RTT 20 ms); the
# server's default route carries `initcwnd N`. Server socket: cubic.
# TSO/GSO/GRO off. Capture on the CLIENT eth0, -s 96.
#   initcwnd3.pcap   initcwnd 3  (first flight 3 segments)
#   initcwnd10.pcap  initcwnd 10 (the Linux default, for comparison)
#   preamble-pause.pcap  initcwnd 10; the CLIENT sends: a 40-byte write,
#                    25 ms (1.25 RTT) of nothing, then 200000 bytes: the
#                    first flight is one short segment, cut by the
#                    application, not by the congestion window
# Namespaces pdvB-iw-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5114.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-iw
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
one() { # NAME INITCWND
    vb_dr_down $P
    vb_dr_up $P 10 40 || return 1
    ip -n $P-srv route change default via 10.62.2.1 dev eth0 initcwnd $2
    local n
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5114 --mode reqresp \
        --parts 200 --resp-size 100000 --cc cubic --timeout 30 &
    local srv=$!
    wait_listen $P-srv 5114 || return 1
    cap_start $P-cli eth0 "$OUT_DIR/$1.pcap" 96 35 tcp port 5114
    ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.62.2.2 --port 5114 --mode reqresp \
        --parts 200 --resp-size 100000 --count 3 --think-ms 500 --timeout 28
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
preamble() { # NAME
    vb_dr_down $P
    vb_dr_up $P 10 30 || return 1
    local n
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 25 $PY $VBAPP server --addr 10.62.2.2 --port 5115 --mode recv --timeout 20 &
    local srv=$!
    wait_listen $P-srv 5115 || return 1
    cap_start $P-cli eth0 "$OUT_DIR/$1.pcap" 96 25 tcp port 5115
    ip netns exec $P-cli timeout 20 $PY $VBAPP client --addr 10.62.2.2 --port 5115 --mode send \
        --preamble 40 --preamble-pause-ms 25 --bytes 200000 --cc cubic --timeout 18
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one initcwnd3 3
one initcwnd10 10
preamble preamble-pause
