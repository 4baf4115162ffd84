#!/bin/bash
# synack-late-*: the path holds the first SYN-ACK longer than the client's
# 1 s SYN timer (issue 19, case 5). The client resends its SYN; the server,
# still in SYN-RECV, answers the repeated SYN with a second SYN-ACK, which
# travels at the normal speed and overtakes the first: it completes the
# handshake at the client; the first SYN-ACK arrives after the client's ACK
# and is answered with a duplicate ACK. Nothing is wrong with the listener.
# client 10.92.1.2 -- router (tun_shape.py, 15 ms each way, RTT 30 ms) --
# server 10.92.2.2:5195. In the router the first SYN-ACK is released 1300 ms
# late (--hold-synack-ms 1300); every other packet keeps the normal delay.
# Three requests of 200 B, 0.5 s apart, each answered with 2000 B (vbapp.py
# reqresp), then close.
# Default sysctls (tcp_syn_retries 6, tcp_syn_linear_timeouts 4, listen
# backlog 1 in vbapp.py: one connection, never full). Two runs, -s 128:
#   late:    ../synack-late-client/synack-late-client.pcap  (client eth0)
#            ../synack-late-server/synack-late-server.pcap  (server eth0)
#   twin without the late SYN-ACK: ../synack-late-healthy-client/..., ../synack-late-healthy-server/...
# Namespaces pdw-syn-{cli,rtr,srv}. Run as root; ~15 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-syn
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT

run() { # run NAME_CLIENT NAME_SERVER [tun_shape options]
    local C=$1 S=$2; shift 2
    pdw_dr_down $P
    pdw_dr_up $P 15 15 "$@" || exit 1
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 15 $PY $VBAPP server --addr 10.92.2.2 --port 5195 --mode reqresp \
        --parts 200 --resp-size 2000 --timeout 10 &
    local SRV=$!
    wait_listen $P-srv 5195 || exit 1
    OUT_DIR=$CAPS/$C; cap_start $P-cli eth0 "$CAPS/$C/$C.pcap" 128 15 tcp port 5195
    OUT_DIR=$CAPS/$S; cap_start $P-srv eth0 "$CAPS/$S/$S.pcap" 128 15 tcp port 5195
    ip netns exec $P-cli timeout 15 $PY $VBAPP client --addr 10.92.2.2 --port 5195 --mode reqresp \
        --parts 200 --resp-size 2000 --count 3 --think-ms 500 --timeout 10
    wait $SRV
    cap_stop_all
    rm -f "$CAPS/$C/$C.pcap.log" "$CAPS/$S/$S.pcap.log"
    ip netns exec $P-srv nstat -az TcpExtListenOverflows TcpExtListenDrops TcpExtTCPSynRetrans 2>/dev/null | grep -v '^#'
    pdw_dr_log $P
}
run synack-late-client synack-late-server --hold-synack-ms 1300
run synack-late-healthy-client synack-late-healthy-server
