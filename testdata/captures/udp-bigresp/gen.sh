#!/bin/bash
# udp-bigresp: DNS-like UDP: the client (10.63.1.2 / fd63::1:2) sends 10
# small queries (40 B) to the server (10.63.2.2 / fd63::2:2, port 53) over
# IPv4, then 10 over IPv6; the server answers each with 4000 B, which the
# server's kernel fragments (all links MTU 1500): IPv4 1480+1480+1048,
# IPv6 1448+1448+1112. The client retries a query once after 1 s.
# LOSS=1: r1 (forward hook, no conntrack) drops the LAST fragment
# (IPv4 offset 2960 / IPv6 offset 2896) of every 3rd answer per family
# (numgen: answers 1, 4, 7, 10 and the retries that follow them alternate).
# Captures (same run): NAME-client.pcap = client eth0 (receiver of the big
# answers), NAME-server.pcap = server eth0 (sender), both -s 128.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdv_chain.sh"
LOSS=${LOSS:-0}
if [ "$LOSS" = 1 ]; then NAME=udp-bigresp-lastfrag-loss; P=pdvC-ubl; else NAME=udp-bigresp; P=pdvC-ub; fi
trap 'cap_stop_all 2>/dev/null; pdv_chain_down $P' EXIT
pdv_chain_down $P
pdv_chain_up $P 1500 || exit 1
if [ "$LOSS" = 1 ]; then
    ip netns exec $P-r1 nft -f - <<'NFT'
table inet pdv_frag {
    chain lastfrag {
        type filter hook forward priority 0; policy accept;
        ip frag-off & 0x1fff == 370 numgen inc mod 3 == 0 counter drop
        frag frag-off 362 numgen inc mod 3 == 0 counter drop
    }
}
NFT
    ip netns exec $P-cli sysctl -qw net.ipv4.ipfrag_time=3 net.ipv6.ip6frag_time=3 \
        net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
fi
F="udp port 53 or icmp or icmp6 or (ip[6:2] & 0x1fff != 0) or (ip6 and ip6[6] == 44)"
ip netns exec $P-srv timeout 40 $PY "$OUT_DIR/dnslike.py" server 10.63.2.2 53 --timeout 12 &
S4=$!
ip netns exec $P-srv timeout 40 $PY "$OUT_DIR/dnslike.py" server fd63::2:2 53 --timeout 14 &
S6=$!
sleep 0.5
cap_start $P-cli eth0 "$OUT_DIR/$NAME-client.pcap" 128 30 "$F"
cap_start $P-srv eth0 "$OUT_DIR/$NAME-server.pcap" 128 30 "$F"
ip netns exec $P-cli timeout 15 $PY "$OUT_DIR/dnslike.py" client 10.63.2.2 53 --timeout 10
ip netns exec $P-cli timeout 15 $PY "$OUT_DIR/dnslike.py" client fd63::2:2 53 --timeout 10
sleep 4  # let the reassembly timeouts expire and the ICMP errors come back
wait $S4 $S6
cap_stop_all
[ "$LOSS" = 1 ] && ip netns exec $P-r1 nft list ruleset | grep counter
exit 0
