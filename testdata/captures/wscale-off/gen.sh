#!/bin/bash
# wscale-off: server sends 3 MB to the client over a 20 ms one-way delay
# router (RTT 40 ms). The client (receiver) namespace has
# net.ipv4.tcp_window_scaling=0, so its SYN carries no window-scale option
# and the window it advertises can never exceed 65535 bytes.
# TSO/GSO off on the server eth0. Capture on the SENDER (server) eth0, -s 80.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-wsoff
trap 'cap_stop_all 2>/dev/null; dr_down $P >/dev/null' EXIT
dr_down $P >/dev/null
dr_up $P 20 40 || exit 1
ip netns exec $P-cli sysctl -qw net.ipv4.tcp_window_scaling=0
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.88.2.2 --port 5006 --mode send --bytes 3145728 --timeout 30 &
SRV=$!
wait_listen $P-srv 5006 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/wscale-off.pcap" 80 35 tcp port 5006
ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.88.2.2 --port 5006 --mode recv --timeout 30
wait $SRV
cap_stop_all
