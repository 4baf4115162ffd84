#!/bin/bash
# slow-start-idle: the server writes 3 bursts of 300000 B separated by 2 s
# of idle (> RTO) to the client, through a router with 20 ms one-way delay
# (RTT 40 ms). The server socket uses cubic (TCP_CONGESTION; these
# namespaces default to bbr, which ignores tcp_slow_start_after_idle).
# TSO/GSO/GRO off; -s 96. Two runs:
#   ssai1.pcap         server net.ipv4.tcp_slow_start_after_idle=1, SENDER (server) eth0
#   ssai1-client.pcap  same run, RECEIVER (client) eth0
#   ssai0.pcap         server tcp_slow_start_after_idle=0, SENDER eth0
# Namespaces pdvB-ss-{cli,rtr,srv}; 10.62.1.2 -> 10.62.2.2:5109.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/vb_lib.sh"
P=pdvB-ss
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
one() { # NAME SSAI CLIENT_CAPTURE(0|1)
    vb_dr_down $P
    vb_dr_up $P 20 40 || return 1
    ip netns exec $P-srv sysctl -qw net.ipv4.tcp_slow_start_after_idle=$2
    local n
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 35 $PY $VBAPP server --addr 10.62.2.2 --port 5109 --mode send \
        --bytes 900000 --bursts 3 --idle 2 --cc cubic --timeout 30 &
    local srv=$!
    wait_listen $P-srv 5109 || return 1
    cap_start $P-srv eth0 "$OUT_DIR/$1.pcap" 96 35 tcp port 5109
    [ $3 = 1 ] && cap_start $P-cli eth0 "$OUT_DIR/$1-client.pcap" 96 35 tcp port 5109
    ip netns exec $P-cli timeout 35 $PY $VBAPP client --addr 10.62.2.2 --port 5109 --mode recv --timeout 30
    wait $srv
    cap_stop_all
    vb_dr_down $P
}
one ssai1 1 1
one ssai0 0 0
