#!/bin/bash
# midstream-*: a capture that starts after the handshake, of a transfer whose
# raw window values are small because the window scale is large (issue 19,
# case 4). Without the SYNs the scale is unknown: the 16-bit window field alone
# reads as a few dozen bytes.
# client 10.92.1.2 -- router (tun_delay.py, 15 ms each way, RTT 30 ms) --
# server 10.92.2.2:5194. The client (receiver) has net.ipv4.tcp_rmem
# "4096 131072 67108864" and net.core.rmem_max 67108864, so its SYN carries
# window scale 11 (x2048); the server keeps the defaults (scale 10 here).
# The server sends 512 KiB (vbapp.py send), the client reads (recv).
# TSO/GSO/GRO off. Captures -s 128 of one run:
#   ../midstream-full-client/midstream-full-client.pcap  client eth0, complete (twin)
#   ../midstream-full-server/midstream-full-server.pcap  server eth0, complete (twin)
#   ../midstream-client/midstream-client.pcap  the same file without its first
#                                              3 frames (SYN, SYN-ACK, ACK)
#   ../midstream-server/midstream-server.pcap  server eth0 without its first 3 frames
# (editcap -r ... 4-1000000: the frames after the handshake, byte for byte).
# Namespaces pdw-mid-{cli,rtr,srv}. Run as root; ~10 s.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CAPS=$(dirname "$HERE")
. "$CAPS/tools/pdw_lib.sh"
P=pdw-mid
TMP=$(mktemp -d /tmp/pdw-mid.XXXXXX)
trap 'cap_stop_all 2>/dev/null; pdw_dr_down $P; rm -rf "$TMP"' EXIT
pdw_dr_down $P
pdw_dr_up $P 15 20 || exit 1
for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
ip netns exec $P-cli sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864" net.core.rmem_max=67108864
ip netns exec $P-srv timeout 20 $PY $VBAPP server --addr 10.92.2.2 --port 5194 --mode send --bytes 524288 --timeout 15 &
SRV=$!
wait_listen $P-srv 5194 || exit 1
OUT_DIR=$TMP
cap_start $P-cli eth0 "$TMP/cli.pcap" 128 20 tcp port 5194
cap_start $P-srv eth0 "$TMP/srv.pcap" 128 20 tcp port 5194
ip netns exec $P-cli timeout 20 $PY $VBAPP client --addr 10.92.2.2 --port 5194 --mode recv --timeout 15
wait $SRV
cap_stop_all
cp "$TMP/cli.pcap" "$CAPS/midstream-full-client/midstream-full-client.pcap"
cp "$TMP/srv.pcap" "$CAPS/midstream-full-server/midstream-full-server.pcap"
editcap -F pcap -r "$TMP/cli.pcap" "$CAPS/midstream-client/midstream-client.pcap" 4-1000000 >/dev/null
editcap -F pcap -r "$TMP/srv.pcap" "$CAPS/midstream-server/midstream-server.pcap" 4-1000000 >/dev/null
tshark -n -r "$TMP/cli.pcap" -c 3 -T fields -e frame.number -e tcp.flags.str -e tcp.options.wscale.shift 2>/dev/null
