#!/bin/bash
# frag-reply-udp and frag-loss-retry-udp (issue 34): client -- r1 -- server
# (namespaces px3-*, 10.203.1.0/24 and 10.203.2.0/24, MTU 1500); the client
# makes 12 RPC calls of 3000 B over UDP (tools/udp_rpc.py, NFS-like: xid,
# resend of the same call after 1 s without an answer), each fragmented by
# the sender in 3; the server answers each call with 100 B.
#   MODE=reply: nothing is dropped on the path; both captures (client eth0,
#     server eth0) use a BPF filter that leaves out the middle fragment of
#     every datagram whose IPv4 ID is odd: fragments missing from the
#     capture only, every call answered at once.
#   MODE=loss: r1 drops (nft, forward) the middle fragment of every 3rd
#     datagram; the server keeps partial datagrams 5 s (ipfrag_time) and
#     reports them (ICMP time exceeded, code 1); the client resends the call.
#     The server-side capture keeps UDP only (no ICMP errors in it).
# Writes NAME-client.pcap / NAME-server.pcap into ../NAME-client, ../NAME-server.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS="$HERE/../tools"
MODE=${MODE:-reply}
if [ "$MODE" = loss ]; then NAME=frag-loss-retry-udp; else NAME=frag-reply-udp; fi
P=px3
NS="$P-cli $P-r1 $P-srv"
down() { for n in $NS; do ip netns del $n 2>/dev/null; done; }
trap 'kill $(jobs -p) 2>/dev/null; down' EXIT
down
for n in $NS; do ip netns add $n; ip -n $n link set lo up; done
ip link add $P-c0 netns $P-cli type veth peer name $P-r0 netns $P-r1
ip link add $P-s0 netns $P-srv type veth peer name $P-r2 netns $P-r1
ip -n $P-cli link set $P-c0 name eth0; ip -n $P-srv link set $P-s0 name eth0
ip -n $P-cli addr add 10.203.1.2/24 dev eth0; ip -n $P-cli link set eth0 up
ip -n $P-srv addr add 10.203.2.2/24 dev eth0; ip -n $P-srv link set eth0 up
ip -n $P-r1 addr add 10.203.1.1/24 dev $P-r0; ip -n $P-r1 link set $P-r0 up
ip -n $P-r1 addr add 10.203.2.1/24 dev $P-r2; ip -n $P-r1 link set $P-r2 up
ip -n $P-cli route add default via 10.203.1.1
ip -n $P-srv route add default via 10.203.2.1
ip netns exec $P-r1 sysctl -qw net.ipv4.ip_forward=1
for n in $P-cli $P-srv; do
    ip netns exec $n ethtool -K eth0 gro off gso off tso off 2>/dev/null
done
FILTER="udp or icmp"
SFILTER=""
if [ "$MODE" = loss ]; then
    ip netns exec $P-r1 nft -f - <<'NFT'
table ip px3_frag {
    chain fragdrop {
        type filter hook forward priority 0; policy accept;
        ip frag-off & 0x1fff == 185 numgen inc mod 3 == 0 counter drop
    }
}
NFT
    ip netns exec $P-srv sysctl -qw net.ipv4.ipfrag_time=5 net.ipv4.icmp_ratelimit=0
    # the server-side capture keeps UDP only: its own "reassembly time
    # exceeded" errors are not in it, only the missing fragment, the resend
    # and the answer to the resend
    SFILTER="udp"
else
    FILTER="(udp or icmp) and not (ip[6:2] & 0x1fff == 185 and ip[5] & 1 == 1)"
fi
mkdir -p "$HERE/../$NAME-client" "$HERE/../$NAME-server"
ip netns exec $P-srv timeout 25 python3 "$TOOLS/udp_rpc.py" server --addr 10.203.2.2 --timeout 20 &
SRV=$!
ip netns exec $P-cli timeout 30 tcpdump -q -i eth0 -s 128 -w "$HERE/../$NAME-client/$NAME-client.pcap" "$FILTER" 2>/dev/null &
C1=$!
ip netns exec $P-srv timeout 30 tcpdump -q -i eth0 -s 128 -w "$HERE/../$NAME-server/$NAME-server.pcap" "${SFILTER:-$FILTER}" 2>/dev/null &
C2=$!
sleep 2
ip netns exec $P-cli timeout 20 python3 "$TOOLS/udp_rpc.py" client --addr 10.203.2.2 --count 12 --interval 0.1
[ "$MODE" = loss ] && sleep 6 # the server's reassembly timeouts
sleep 0.5
kill -INT $C1 $C2 2>/dev/null
wait $C1 $C2 2>/dev/null
kill $SRV 2>/dev/null
[ "$MODE" = loss ] && ip netns exec $P-r1 nft list ruleset | grep counter
exit 0
