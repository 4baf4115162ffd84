#!/bin/bash
# idle-reply-*: a request and its reply after several seconds of idle on a
# persistent connection (issue 19, case 2). The first segment after the idle
# time starts exactly at the next new byte; the path then reorders the rest of
# that first flight (one segment overtakes the 6 before it, which follow it
# microseconds later). Nothing is lost and nothing is resent.
# client 10.92.1.2 -- router (tun_shape.py: 15 ms each way, RTT 30 ms) -- server
# 10.92.2.2:5192. vbapp.py reqresp on one connection, 4 s apart: requests of
# 200, 200 and 16000 B (one write each; a GET, a GET, a POST); the server
# answers each with 30000 B (one write). In the router, data segments (IP
# length >= 500) are reordered in both directions at the 2nd segment after a
# pause of >= 500 ms, never in the first flight of the connection: the replies
# to requests 2 and 3 and the 16000-B request 3.
# TSO/GSO/GRO off; default sysctls. Two runs:
#   reordered: ../idle-reply-client/idle-reply-client.pcap (client eth0)
#              ../idle-reply-server/idle-reply-server.pcap (server eth0)
#   twin without reordering: ../idle-reply-healthy-client/..., ../idle-reply-healthy-server/...
# -s 128. Namespaces pdw-idle-{cli,rtr,srv}. Run as root; ~30 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-idle
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P' EXIT

run() { # run NAME_CLIENT NAME_SERVER [tun_shape options]
    local C=$1 S=$2; shift 2
    pdw_dr_down $P
    pdw_dr_up $P 15 25 "$@" || exit 1
    for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
    ip netns exec $P-srv timeout 25 $PY $VBAPP server --addr 10.92.2.2 --port 5192 --mode reqresp \
        --req-sizes 200,200,16000 --resp-size 30000 --timeout 20 &
    local SRV=$!
    wait_listen $P-srv 5192 || exit 1
    OUT_DIR=$CAPS/$C; cap_start $P-cli eth0 "$CAPS/$C/$C.pcap" 128 25 tcp port 5192
    OUT_DIR=$CAPS/$S; cap_start $P-srv eth0 "$CAPS/$S/$S.pcap" 128 25 tcp port 5192
    ip netns exec $P-cli timeout 25 $PY $VBAPP client --addr 10.92.2.2 --port 5192 --mode reqresp \
        --req-sizes 200,200,16000 --resp-size 30000 --count 3 --think-ms 4000 --timeout 20
    wait $SRV
    cap_stop_all
    rm -f "$CAPS/$C/$C.pcap.log" "$CAPS/$S/$S.pcap.log"
    pdw_dr_log $P
}
run idle-reply-client idle-reply-server --reorder-dst 10.92.1.2,10.92.2.2 --reorder-hold 6 --reorder-idle-ms 500
run idle-reply-healthy-client idle-reply-healthy-server
