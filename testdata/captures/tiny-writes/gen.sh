#!/bin/bash
# tiny-writes: client (10.64.1.2) -> delay router -> server (10.64.2.2).
# TSO/GSO off on the client eth0, default sysctls. Every capture on the
# CLIENT eth0, -s 96 (headers only).
#  1. tiny-writes.pcap       router delay 0 (RTT ~0.15 ms, the TUN forwarder's
#                            own latency): the client sets TCP_NODELAY and
#                            writes 5000 chunks of 20 B (100000 B) in a loop,
#                            no sleep; the server only reads.
#  2. tiny-writes-rtt2ms.pcap the same with 1 ms one way (RTT ~2 ms): the
#                            first 10 writes fill the initial window (10
#                            packets), then the kernel coalesces the queued
#                            writes into full segments.
#  3. tiny-rpc.pcap          delay 0, tools/tcpapp.py reqresp: 250 requests
#                            of 100 B (one write each, TCP_NODELAY), each
#                            answered with 50 B before the next.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdvD_lib.sh"
P=pdvD-tw
trap 'cap_stop_all 2>/dev/null; pdvd_down $P' EXIT
run() { # NAME DELAY_MS MODE
    local name=$1 delay=$2 mode=$3
    pdvd_down $P
    pdvd_up $P $delay 30 || exit 1
    ip netns exec $P-cli ethtool -K eth0 tso off gso off >/dev/null
    if [ $mode = stream ]; then
        ip netns exec $P-srv timeout 25 $PY "$OUT_DIR/tinywrite.py" server --addr 10.64.2.2 --port 5102 --timeout 20 &
    else
        ip netns exec $P-srv timeout 25 $PY $APP server --addr 10.64.2.2 --port 5102 --mode reqresp \
            --parts 100 --resp-size 50 --timeout 20 &
    fi
    local srv=$!
    wait_listen $P-srv 5102 || exit 1
    cap_start $P-cli eth0 "$OUT_DIR/$name.pcap" 96 25 tcp port 5102
    if [ $mode = stream ]; then
        ip netns exec $P-cli timeout 25 $PY "$OUT_DIR/tinywrite.py" client --addr 10.64.2.2 --port 5102 \
            --size 20 --count 5000 --timeout 20
    else
        ip netns exec $P-cli timeout 25 $PY $APP client --addr 10.64.2.2 --port 5102 --mode reqresp \
            --parts 100 --resp-size 50 --count 250 --nodelay --timeout 20 | cut -c1-60
    fi
    wait $srv
    cap_stop_all
}
run tiny-writes 0 stream
run tiny-writes-rtt2ms 1 stream
run tiny-rpc 0 rpc
