#!/bin/bash
# pmtu-blackhole-1450: client - r1 - r2 - server, r1<->r2 MTU 1450 (a
# VXLAN-sized link: 1500 - 50); r2 drops the ICMP frag-needed it generates
# (nft output hook), so the server's 1500-byte packets vanish silently.
# The client sends a 100-byte request; the server answers with a 200-byte
# header, then a 200000-byte body (full-size segments).
# PROBING=0 (default): server tcp_mtu_probing=0 -> never recovers; the client
# gives up after 12 s. PROBING=1: tcp_mtu_probing=1 -> recovers after the
# black-hole detection. TSO/GSO off on the server.
# Captures of the same run: NAME-client.pcap (client eth0, -s 96) and
# NAME-server.pcap (server eth0, -s 96).
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/pdv_chain.sh"
PROBING=${PROBING:-0}
P=pdvC-bh$PROBING
NAME=bh1450-probing$PROBING
trap 'cap_stop_all 2>/dev/null; pdv_chain_down $P' EXIT
pdv_chain_down $P
pdv_chain_up $P 1450 || exit 1
ip netns exec $P-r2 nft -f - <<'NFT'
table ip pdv_bh {
    chain out {
        type filter hook output priority 0; policy accept;
        icmp type destination-unreachable icmp code frag-needed counter drop
    }
}
NFT
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null
ip netns exec $P-srv sysctl -qw net.ipv4.tcp_mtu_probing=$PROBING
ip netns exec $P-srv timeout 25 $PY "$OUT_DIR/httplike.py" server 10.63.2.2 5064 --timeout 14 &
SRV=$!
wait_listen $P-srv 5064 || exit 1
cap_start $P-cli eth0 "$OUT_DIR/$NAME-client.pcap" 96 25 "tcp port 5064 or icmp"
cap_start $P-srv eth0 "$OUT_DIR/$NAME-server.pcap" 96 25 "tcp port 5064 or icmp"
ip netns exec $P-cli timeout 20 $PY "$OUT_DIR/httplike.py" client 10.63.2.2 5064 --timeout 12
wait $SRV
cap_stop_all
ip netns exec $P-r2 nft list ruleset | grep counter
exit 0
