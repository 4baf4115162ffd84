#!/bin/bash
# nagle-nodelay: same as nagle-delack but the client sets TCP_NODELAY.
# Client writes each request as write(100 B) + write(200 B); the server
# replies 50 B only after the full 300 B. Capture on the client's eth0.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-nodelay
trap 'cap_stop_all 2>/dev/null; pair_down $P' EXIT
pair_down $P
pair_up $P || exit 1
ip netns exec $P-srv timeout 30 $PY $APP server --addr 10.88.0.2 --port 5001 --mode reqresp --parts 100,200 --resp-size 50 --timeout 25 &
SRV=$!
wait_listen $P-srv 5001 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/nagle-nodelay.pcap" 256 30 tcp port 5001
ip netns exec $P-cli timeout 30 $PY $APP client --addr 10.88.0.2 --port 5001 --mode reqresp \
    --parts 100,200 --resp-size 50 --count 30 --nodelay --timeout 25
wait $SRV
cap_stop_all
