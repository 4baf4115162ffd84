#!/bin/bash
# mss-clamp-ok: client - r1 - r2 - server, r1<->r2 MTU 1380. r1 clamps the
# MSS of every forwarded SYN / SYN-ACK to its route MTU:
#   nft: tcp flags syn tcp option maxseg size set rt mtu   (forward hook)
# so both ends send <= 1380-byte packets from the start: no ICMP, no loss.
# The server sends 400000 B to the client. TSO/GSO off on the server.
# Captures of the same run: mss-clamp-server.pcap (server eth0, -s 96) and
# mss-clamp-client.pcap (client eth0, -s 96).
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdv_chain.sh"
P=pdvC-clamp
trap 'cap_stop_all 2>/dev/null; pdv_chain_down $P' EXIT
pdv_chain_down $P
pdv_chain_up $P 1380 || exit 1
ip netns exec $P-r1 nft -f - <<'NFT'
table inet pdv_clamp {
    chain clampfw {
        type filter hook forward priority mangle; policy accept;
        tcp flags syn tcp option maxseg size set rt mtu counter
    }
}
NFT
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null
ip netns exec $P-srv timeout 20 $PY $APP server --addr 10.63.2.2 --port 5065 --mode send --bytes 400000 --timeout 15 &
SRV=$!
wait_listen $P-srv 5065 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/mss-clamp-server.pcap" 96 20 "tcp port 5065 or icmp"
cap_start $P-cli eth0 "$OUT_DIR/mss-clamp-client.pcap" 96 20 "tcp port 5065 or icmp"
ip netns exec $P-cli timeout 20 $PY $APP client --addr 10.63.2.2 --port 5065 --mode recv --timeout 15
wait $SRV
cap_stop_all
ip netns exec $P-r1 nft list ruleset | grep counter
exit 0
