#!/bin/bash
# Two capture points of the same connections (issue 36), made by the kernel:
#   client ns (10.205.1.2) -- router ns -- server ns (10.205.2.2)
# one tcpdump on the client's eth0 (client.pcap) and one on the server's
# eth0 (server.pcap), in the same run. The router adds 5 ms each way (TUN)
# and plants the case's problem with nft:
#   healthy   nothing
#   drop-data every 20th data segment server->client dropped between the points
#   drop-synack  every SYN-ACK dropped for the first 2.5 s (the client's SYN
#             retries and the server's SYN-ACK retries are seen)
#   drop-syn  every client SYN dropped for the first 2.5 s (client->server)
#   nat       masquerade towards the server, random ports 40000-49999 (no delay)
#   mss       tcp option maxseg size set 1200 on SYNs both ways
#   drop-c2s  the client uploads 150000 B per connection (10000 B answer);
#             every 20th data segment client->server dropped between the points
#   queue     tc tbf 10 mbit, 256 KiB deep, on the router's egress toward the
#             client: the server->client one-way delay rises with load
#   reorder   the TUN holds every 10th packet of 1000 B or more 2 ms longer
#             (tun_delay.py --hold-every): later data segments overtake it
#   router-drop  the second point is the router's interface toward the server
#             (router.pcap, not server.pcap); the upload of drop-c2s, with every
#             20th data segment dropped by nft input in the server namespace:
#             after the second point, so not between the two
# Usage: gen.sh CASE (as root). Namespaces px5-*, deleted on exit.
set -u
CASE=${1:?case}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${PX5_OUT:-$HERE/$CASE} # PX5_OUT, PX5_BYTES: bigger pairs for measuring (not kept)
P=px5-$CASE
C=$P-c R=$P-r S=$P-s
PY=/usr/bin/python3
mkdir -p "$OUT"
cleanup() {
    for p in $(cat /tmp/$P.pids 2>/dev/null); do kill $p 2>/dev/null; done
    rm -f /tmp/$P.pids /tmp/$P-tun.log
    for n in $C $R $S; do ip netns del $n 2>/dev/null; done
}
trap cleanup EXIT
for n in $C $R $S; do ip netns add $n; ip -n $n link set lo up; done
ip link add eth0 netns $C type veth peer name to-c netns $R
ip link add eth0 netns $S type veth peer name to-s netns $R
ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0
for n in $C $S; do ip netns exec $n sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
ip -n $C addr add 10.205.1.2/24 dev eth0
ip -n $S addr add 10.205.2.2/24 dev eth0
ip -n $R addr add 10.205.1.1/24 dev to-c
ip -n $R addr add 10.205.2.1/24 dev to-s
for l in "$C eth0" "$S eth0" "$R to-c" "$R to-s"; do
    set -- $l; ip -n $1 link set $2 up
    ip netns exec $1 ethtool -K $2 tso off gso off gro off >/dev/null 2>&1
done
ip -n $C route add default via 10.205.1.1
ip -n $S route add default via 10.205.2.1
# 5 ms each way: the router policy-routes what arrives on to-c/to-s into
# tun0, where tools/tun_delay.py holds it and writes it back (no netem here)
# (not in the nat case: NAT and the TUN's second pass through conntrack do not mix)
if [ "$CASE" != nat ]; then
    ip -n $R tuntap add dev tun0 mode tun
    ip -n $R link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec $R sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    HOLD=
    [ "$CASE" = reorder ] && HOLD="--hold-every 10 --hold-ms 2 --hold-min-bytes 1000"
    ip netns exec $R timeout 105 $PY "$HERE/../captures/tools/tun_delay.py" --dev tun0 --delay-ms 5 \
        --duration 100 $HOLD > /tmp/$P-tun.log 2>&1 &
    echo $! >> /tmp/$P.pids
    for i in $(seq 1 50); do grep -q "tun_delay:" /tmp/$P-tun.log 2>/dev/null && break; sleep 0.1; done
    ip -n $R route add default dev tun0 table 100
    for dev in to-c to-s; do ip -n $R rule add iif $dev lookup 100 pref 100; done
fi
ip netns exec $R nft add table ip px5
ip netns exec $R nft add chain ip px5 forw '{ type filter hook forward priority 0; }'
CONNS=3 BYTES=${PX5_BYTES:-150000} UPLOAD=0
SECOND=server # the second capture point: the server's eth0, or the router's to-s
case $CASE in
healthy) ;;
drop-data)
    ip netns exec $R nft add rule ip px5 forw oifname to-c ip saddr 10.205.2.2 tcp sport 5000 \
        ip length gt 200 numgen inc mod 20 == 19 counter drop ;;
drop-synack|drop-syn) CONNS=2 ;;
nat)
    ip netns exec $R nft add chain ip px5 post '{ type nat hook postrouting priority 100; }'
    ip netns exec $R nft add rule ip px5 post oifname to-s meta l4proto tcp counter masquerade to :40000-49999 random ;;
mss)
    ip netns exec $R nft add rule ip px5 forw tcp flags syn tcp option maxseg size set 1200 ;;
drop-c2s)
    BYTES=10000 UPLOAD=150000
    ip netns exec $R nft add rule ip px5 forw oifname to-s ip saddr 10.205.1.2 tcp dport 5000 \
        ip length gt 200 numgen inc mod 20 == 19 counter drop ;;
queue)
    ip netns exec $R tc qdisc add dev to-c root tbf rate 10mbit burst 3000 limit 262144 ;;
reorder) ;;
router-drop)
    BYTES=10000 UPLOAD=150000 SECOND=router
    ip netns exec $S nft add table ip px5
    ip netns exec $S nft add chain ip px5 in '{ type filter hook input priority 0; }'
    ip netns exec $S nft add rule ip px5 in ip saddr 10.205.1.2 tcp dport 5000 \
        ip length gt 200 numgen inc mod 20 == 19 counter drop ;;
*) echo "unknown case" >&2; exit 2 ;;
esac
ip netns exec $C timeout 100 tcpdump -i eth0 -s 128 -U -w "$OUT/client.pcap" tcp >/dev/null 2>&1 &
echo $! >> /tmp/$P.pids
if [ $SECOND = router ]; then
    ip netns exec $R timeout 100 tcpdump -i to-s -s 128 -U -w "$OUT/router.pcap" tcp >/dev/null 2>&1 &
else
    ip netns exec $S timeout 100 tcpdump -i eth0 -s 128 -U -w "$OUT/server.pcap" tcp >/dev/null 2>&1 &
fi
echo $! >> /tmp/$P.pids
ip netns exec $S timeout 95 $PY "$HERE/ptapp.py" server 10.205.2.2 5000 $CONNS $BYTES $UPLOAD &
echo $! >> /tmp/$P.pids
sleep 1
if [ "$CASE" = drop-syn ]; then
    ip netns exec $R nft add rule ip px5 forw oifname to-s ip saddr 10.205.1.2 'tcp flags & (syn|ack) == syn' counter drop
    ( sleep 2.5; ip netns exec $R nft flush chain ip px5 forw ) &
fi
if [ "$CASE" = drop-synack ]; then
    ip netns exec $R nft add rule ip px5 forw oifname to-c ip saddr 10.205.2.2 'tcp flags & (syn|ack) == syn|ack' counter drop
    ( sleep 2.5; ip netns exec $R nft flush chain ip px5 forw ) &
fi
ip netns exec $C timeout 90 $PY "$HERE/ptapp.py" client 10.205.2.2 5000 $CONNS $UPLOAD
sleep 1
ip netns exec $R nft list ruleset | grep -E "counter|snat"
[ $CASE = router-drop ] && ip netns exec $S nft list ruleset | grep counter
[ $CASE = queue ] && ip netns exec $R tc -s qdisc show dev to-c
for p in $(cat /tmp/$P.pids); do kill -INT $p 2>/dev/null; done
sleep 1
[ -n "${HOLD:-}" ] && grep held /tmp/$P-tun.log
ls -l "$OUT"
