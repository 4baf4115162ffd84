#!/bin/bash
# reqresp-slow-server: a server that sleeps 40 ms before every answer (NOT
# Nagle: the client writes each request in one write, or uses TCP_NODELAY),
# through a router with 10 ms one-way delay (RTT 20 ms).
#   slow-single.pcap   Python client, one 300 B write per request, Nagle on,
#                      30 requests, 64 B answer; captured on the CLIENT eth0, -s 128
#   slow-nodelay.pcap  Python client, TCP_NODELAY, 50 B + 1000 B writes, 30
#                      requests; captured on the SERVER with -i any (SLL2), -s 128
# Namespaces pdvB-sl-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5105.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-sl
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
one() { # NAME CAPNS CAPIF PARTS NODELAY
    local name=$1 cns=$2 cif=$3 parts=$4 nd=$5 total
    total=$(echo $parts | tr ',' '+' | bc)
    vb_dr_down $P
    vb_dr_up $P 10 40 || return 1
    ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5105 --mode reqresp \
        --parts $total --resp-size 64 --server-delay-ms 40 --timeout 30 &
    local srv=$!
    wait_listen $P-srv 5105 || return 1
    cap_start $P-$cns $cif "$OUT_DIR/$name.pcap" 128 35 tcp port 5105
    ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.62.2.2 --port 5105 --mode reqresp \
        --parts $parts --resp-size 64 --count 30 $([ $nd = 1 ] && echo --nodelay) --timeout 28
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one slow-single cli eth0 300 0
one slow-nodelay srv any 50,1000 1
