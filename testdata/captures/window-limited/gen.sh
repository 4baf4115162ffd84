#!/bin/bash
# window-limited: server sends 2 MB to a client whose SO_RCVBUF=32768 is set
# before connect (fixed buffer, no autotuning). Path: client - router -
# server, 20 ms one-way delay in the router (tools/delay_router.sh, TUN +
# tun_delay.py), tbf 50mbit on the router's client-facing egress (to-cli).
# TSO/GSO off on the server eth0 so the capture shows wire-size segments.
# Capture on the SENDER (server) eth0, snaplen 80 (headers only).
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-wlim
trap 'cap_stop_all 2>/dev/null; dr_down $P >/dev/null' EXIT
dr_down $P >/dev/null
dr_up $P 20 40 || exit 1
ip netns exec $P-rtr tc qdisc add dev to-cli root tbf rate 50mbit burst 20kb latency 100ms
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.88.2.2 --port 5005 --mode send --bytes 2097152 --timeout 30 &
SRV=$!
wait_listen $P-srv 5005 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/window-limited.pcap" 80 35 tcp port 5005
ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.88.2.2 --port 5005 --mode recv --rcvbuf 32768 --timeout 30
wait $SRV
cap_stop_all
ip netns exec $P-rtr tc -s qdisc show dev to-cli | head -3
