#!/bin/bash
# reqresp-healthy: 50 request/response exchanges on one connection, each
# request is ONE write() of 300 B, reply 50 B, 5 ms think time. Control.
# Capture on the client's eth0.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-rrh
trap 'cap_stop_all 2>/dev/null; pair_down $P' EXIT
pair_down $P
pair_up $P || exit 1
ip netns exec $P-srv timeout 30 $PY $APP server --addr 10.88.0.2 --port 5003 --mode reqresp --parts 300 --resp-size 50 --timeout 25 &
SRV=$!
wait_listen $P-srv 5003 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/reqresp-healthy.pcap" 256 30 tcp port 5003
ip netns exec $P-cli timeout 30 $PY $APP client --addr 10.88.0.2 --port 5003 --mode reqresp \
    --parts 300 --resp-size 50 --count 50 --think-ms 5 --timeout 25
wait $SRV
cap_stop_all
