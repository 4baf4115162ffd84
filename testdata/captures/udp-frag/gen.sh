#!/bin/bash
# udp-frag: client - r1 - r2 - server, all links MTU 1500. The client sends
# 10 UDP datagrams of 3000 B payload over IPv4 (10.88.1.2 -> 10.88.2.2:5011)
# then 10 over IPv6 (fd88::1:2 -> fd88::2:2:5011), 100 ms apart; each is
# fragmented by the sender into 3 fragments. LOSS=1 (../udp-frag-loss): r1's
# forward hook drops the 2nd fragment (IPv4 offset 1480 / IPv6 offset 1448)
# of every 3rd datagram per family (numgen inc mod 3 == 0: datagrams 1,4,7,10)
# and the server has ipfrag_time=ip6frag_time=5 s so reassembly timeouts
# (ICMP time-exceeded code 1) come back within the run.
# Captures: sender (client eth0) -> NAME.pcap; LOSS=1 also receiver
# (server eth0) -> NAME-receiver.pcap.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
LOSS=${LOSS:-0}
if [ "$LOSS" = 1 ]; then NAME=udp-frag-loss; P=pdd-ufl; else NAME=udp-frag; P=pdd-uf; fi
trap 'cap_stop_all 2>/dev/null; chain_down $P' EXIT
chain_down $P
chain_up $P 1500 || exit 1
if [ "$LOSS" = 1 ]; then
    ip netns exec $P-r1 nft -f - <<'NFT'
table inet pdd_frag {
    chain fragdrop {
        type filter hook forward priority 0; policy accept;
        ip frag-off & 0x1fff == 185 numgen inc mod 3 == 0 counter drop
        frag frag-off 181 numgen inc mod 3 == 0 counter drop
    }
}
NFT
    ip netns exec $P-srv sysctl -qw net.ipv4.ipfrag_time=5 net.ipv6.ip6frag_time=5 \
        net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
fi
ip netns exec $P-srv timeout 15 $PY $APP udprecv --addr 10.88.2.2 --port 5011 --timeout 10 &
R4=$!
ip netns exec $P-srv timeout 15 $PY $APP udprecv --addr fd88::2:2 --port 5011 --timeout 10 &
R6=$!
sleep 0.5
cap_start $P-cli eth0 "$OUT_DIR/$NAME.pcap" 256 15 "udp or icmp or icmp6 or (ip[6:2] & 0x1fff != 0) or (ip6 and ip6[6] == 44)"
[ "$LOSS" = 1 ] && cap_start $P-srv eth0 "$OUT_DIR/$NAME-receiver.pcap" 256 15 "udp or icmp or icmp6 or (ip[6:2] & 0x1fff != 0) or (ip6 and ip6[6] == 44)"
ip netns exec $P-cli timeout 10 $PY $APP udpsend --addr 10.88.2.2 --port 5011 --size 3000 --count 10 --interval 0.1
ip netns exec $P-cli timeout 10 $PY $APP udpsend --addr fd88::2:2 --port 5011 --size 3000 --count 10 --interval 0.1
wait $R4 $R6
cap_stop_all
[ "$LOSS" = 1 ] && ip netns exec $P-r1 nft list ruleset | grep counter
exit 0
