#!/bin/bash
# reorder-*: path reordering is not loss (issue 19, case 1).
# client 10.92.1.2 -- r1 (tun_delay.py, 20 ms each way: RTT 40 ms) -- r2
# (tun_shape.py: no delay, reorders data toward the client) -- server 10.92.2.2.
# The server sends 3 bursts of 256 KiB (786432 B) with 1 s of silence between
# them (vbapp.py --bursts 3 --idle 1), net.ipv4.tcp_slow_start_after_idle=0 on
# the server (each burst goes out at the full window). In r2, one data segment
# overtakes the 12 before it (they follow it microseconds later, never dropped):
# at the 2nd segment of bursts 2 and 3 (after the silence) and at every 100th
# data segment. TSO/GSO/GRO off. Default sysctls otherwise. Two runs:
#   reordered: ../reorder-client/reorder-client.pcap  (client eth0, receiver)
#              ../reorder-router/reorder-router.pcap  (r2 to-r1: next to the
#                                                      sender, after the reordering)
#   twin without reordering, same captures:
#              ../reorder-healthy-client/reorder-healthy-client.pcap
#              ../reorder-healthy-router/reorder-healthy-router.pcap
# -s 128. Namespaces pdw-reo-{cli,r1,r2,srv}. Run as root; ~20 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-reo
trap 'cap_stop_all 2>/dev/null; pdw_chain_down $P' EXIT

run() { # run NAME_CLIENT NAME_ROUTER [tun_shape options]
    local C=$1 R=$2; shift 2
    pdw_chain_down $P
    pdw_chain_up $P 20 20 "$@" || exit 1
    ip netns exec $P-srv sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 20 $PY $VBAPP server --addr 10.92.2.2 --port 5191 --mode send \
        --bytes 786432 --bursts 3 --idle 1 --timeout 15 &
    local SRV=$!
    wait_listen $P-srv 5191 || exit 1
    OUT_DIR=$CAPS/$C; cap_start $P-cli eth0 "$CAPS/$C/$C.pcap" 128 20 tcp port 5191
    OUT_DIR=$CAPS/$R; cap_start $P-r2 to-r1 "$CAPS/$R/$R.pcap" 128 20 tcp port 5191
    ip netns exec $P-cli timeout 20 $PY $VBAPP client --addr 10.92.2.2 --port 5191 --mode recv --timeout 15
    wait $SRV
    cap_stop_all
    rm -f "$CAPS/$C/$C.pcap.log" "$CAPS/$R/$R.pcap.log"
    pdw_chain_log $P
}
run reorder-client reorder-router --reorder-dst 10.92.1.2 --reorder-hold 12 --reorder-idle-ms 300 --reorder-every 100
run reorder-healthy-client reorder-healthy-router
