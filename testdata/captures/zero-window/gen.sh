#!/bin/bash
# zero-window: the receiver (client, SO_RCVBUF=4096 set before connect, so
# the kernel fixes sk_rcvbuf at 8192 and disables receive-buffer autotuning)
# reads 4096 B every 100 ms; the sender (server) pushes 300 KB.
# The reader also stops reading for 1.5 s after 100000 B and after 200000 B
# (persist timer / zero-window probes). TSO/GSO are off on the sender eth0.
# Capture on the SENDER (server) eth0.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-zwin
trap 'cap_stop_all 2>/dev/null; pair_down $P' EXIT
pair_down $P
pair_up $P || exit 1
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 25 $PY $APP server --addr 10.88.0.2 --port 5004 --mode send --bytes 307200 --timeout 22 &
SRV=$!
wait_listen $P-srv 5004 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/zero-window.pcap" 128 20 tcp port 5004
ip netns exec $P-cli timeout 25 $PY $APP client --addr 10.88.0.2 --port 5004 --mode recv \
    --rcvbuf 4096 --read-chunk 4096 --read-interval 0.1 --pauses 100000:1.5,200000:1.5 --timeout 22
wait $SRV
cap_stop_all
