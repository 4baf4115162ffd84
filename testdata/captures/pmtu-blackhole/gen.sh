#!/bin/bash
# pmtu-blackhole: topology of ../pmtu-icmp-ok (client - r1 - r2 - server,
# r1<->r2 MTU 1400, others 1500) but r2 drops the ICMP frag-needed messages
# it generates (nft output hook: icmp type destination-unreachable
# icmp code frag-needed drop). Server net.ipv4.tcp_mtu_probing=0 (PROBING=1
# for ../pmtu-blackhole-probing), TSO/GSO off on the server eth0.
# The server tries to send 500 KB; the run is bounded to ~20 s.
# Capture on the SERVER eth0 (-s 128).
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
PROBING=${PROBING:-0}
if [ "$PROBING" = 1 ]; then NAME=pmtu-blackhole-probing; P=pdd-bhp; else NAME=pmtu-blackhole; P=pdd-bh; fi
trap 'cap_stop_all 2>/dev/null; chain_down $P' EXIT
chain_down $P
chain_up $P 1400 || exit 1
ip netns exec $P-r2 nft -f - <<'NFT'
table ip pdd_bh {
    chain out {
        type filter hook output priority 0; policy accept;
        icmp type destination-unreachable icmp code frag-needed counter drop
    }
}
NFT
ip netns exec $P-srv sysctl -qw net.ipv4.tcp_mtu_probing=$PROBING
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 25 $PY $APP server --addr 10.88.2.2 --port 5010 --mode send --bytes 512000 --timeout 20 &
SRV=$!
wait_listen $P-srv 5010 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/$NAME.pcap" 128 25 "tcp port 5010 or icmp"
ip netns exec $P-cli timeout 25 $PY $APP client --addr 10.88.2.2 --port 5010 --mode recv --timeout 20
wait $SRV
cap_stop_all
ip netns exec $P-r2 nft list ruleset | grep counter
