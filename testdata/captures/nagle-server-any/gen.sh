#!/bin/bash
# nagle-server-any: write-write-read requests (50 B header + 1000 B body,
# 64 B reply) through a router with 10 ms one-way delay (RTT 20 ms),
# captured on the SERVER with `tcpdump -i any` (LINUX_SLL2), -s 256.
# Four runs, one capture each:
#   nagle-py.pcap     Python client (tools/vbapp.py), Nagle on, 30 requests
#   nagle-c.pcap      C client (nagle_client.c), Nagle on, 200 B + 600 B, 25 requests
#   nodelay-py.pcap   Python client, TCP_NODELAY, 50 B + 1000 B, 30 requests
#   nodelay-c.pcap    C client, TCP_NODELAY, 50 B + 1000 B, 30 requests
# Namespaces pdvB-ng-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5101.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-ng
CBIN=$(mktemp /tmp/pdvB-nagle_client.XXXXXX)
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P; rm -f "$CBIN"' EXIT
gcc -O2 -Wall -o "$CBIN" "$OUT_DIR/nagle_client.c" || exit 1
one() { # NAME CLIENT(py|c) NODELAY(0|1) HDR BODY COUNT
    local name=$1 cl=$2 nd=$3 h=$4 b=$5 n=$6 ndf=""
    [ $nd = 1 ] && ndf=nodelay
    vb_dr_down $P
    vb_dr_up $P 10 40 || return 1
    ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5101 --mode reqresp \
        --parts $((h+b)) --resp-size 64 --timeout 30 &
    local srv=$!
    wait_listen $P-srv 5101 || return 1
    cap_start $P-srv any "$OUT_DIR/$name.pcap" 256 35 tcp port 5101
    if [ $cl = c ]; then
        ip netns exec $P-cli timeout 30 "$CBIN" 10.62.2.2 5101 $h $b $n $ndf
    else
        ip netns exec $P-cli timeout 30 $PY $VBAPP client --addr 10.62.2.2 --port 5101 --mode reqresp \
            --parts $h,$b --resp-size 64 --count $n ${ndf:+--nodelay} --timeout 28
    fi
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one nagle-py py 0 50 1000 30
one nagle-c c 0 200 600 25
one nodelay-py py 1 50 1000 30
one nodelay-c c 1 50 1000 30
