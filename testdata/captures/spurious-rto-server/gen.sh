#!/bin/bash
# spurious-rto-*: a delay spike on the ACK path makes the sender's
# retransmission timer fire although nothing was lost (issue 19, case 6).
# client 10.92.1.2 -- router (tun_shape.py, 40 ms each way, RTT 80 ms) --
# server 10.92.2.2:5196. The server sends 512 KiB (vbapp.py send), the client
# reads. In the router, the path toward the server stalls for STALL_MS (520)
# ms after the 150th data packet toward the client (--freeze-after-data):
# the client's ACKs of that moment are held and then delivered together, in
# order. The server's timer fires meanwhile and resends the oldest
# unacknowledged segment, which the client already had (it answers with a
# D-SACK); the held ACKs arrive a fraction of an RTT after the resend.
# (At RTT 30 ms the wait before the resend stays under 0.4 s and today's
# pcapdoc reports the timeout at info only; 80 ms makes it a warning.)
# TSO/GSO/GRO off; default sysctls (tcp_frto 2, congestion control bbr,
# this machine's default). Two runs, -s 128:
#   stalled: ../spurious-rto-server/spurious-rto-server.pcap (server eth0, sender)
#            ../spurious-rto-client/spurious-rto-client.pcap (client eth0, receiver)
#   twin without the stall: ../spurious-rto-healthy-server/..., ../spurious-rto-healthy-client/...
# Namespaces pdw-spur-{cli,rtr,srv}. Run as root; ~15 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-spur
STALL_MS=${STALL_MS:-520}
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT

run() { # run NAME_SERVER NAME_CLIENT [tun_shape options]
    local S=$1 C=$2; shift 2
    pdw_dr_down $P
    pdw_dr_up $P 40 15 "$@" || exit 1
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 15 $PY $VBAPP server --addr 10.92.2.2 --port 5196 --mode send --bytes 524288 --timeout 10 &
    local SRV=$!
    wait_listen $P-srv 5196 || exit 1
    OUT_DIR=$CAPS/$S; cap_start $P-srv eth0 "$CAPS/$S/$S.pcap" 128 15 tcp port 5196
    OUT_DIR=$CAPS/$C; cap_start $P-cli eth0 "$CAPS/$C/$C.pcap" 128 15 tcp port 5196
    ip netns exec $P-cli timeout 15 $PY $VBAPP client --addr 10.92.2.2 --port 5196 --mode recv --timeout 10
    wait $SRV
    ip netns exec $P-srv nstat -az TcpExtTCPSpuriousRTOs TcpExtTCPTimeouts TcpExtTCPDSACKRecv TcpExtTCPLossUndo 2>/dev/null | grep -v '^#'
    cap_stop_all
    rm -f "$CAPS/$C/$C.pcap.log" "$CAPS/$S/$S.pcap.log"
    pdw_dr_log $P
}
run spurious-rto-server spurious-rto-client --freeze-dst 10.92.2.2 --freeze-ms $STALL_MS --freeze-after-data 150
run spurious-rto-healthy-server spurious-rto-healthy-client
