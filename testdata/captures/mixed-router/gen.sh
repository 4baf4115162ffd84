#!/bin/bash
# gen.sh: mixed "SRE ticket" capture through a delay box and a router (run as root).
#   cli1 10.66.1.2 --+
#   cli2 10.66.3.2 --+-- dly (tun_delay.py, 15 ms each way) -- rtr (nft drops) -- srv 10.66.2.2
#   cli3 10.66.4.2 --+       10.66.5.1            10.66.5.2 | 10.66.2.1
# Traffic (mixapp.py): 3 keep-alive HTTP clients, 30 HTTP/1.0 short connections (cli2), a 5 MB
# download on port 8080 (cli3) with ~1 % of the server's segments dropped in rtr (nft numgen),
# DNS-like UDP queries (cli1), cli2 connect()s to port 8443 whose SYNs rtr drops (8 s timeout).
# Captures (all in the same run):
#   router.pcap      rtr: tcpdump -i any -s 96   (LINUX_SLL2, every forwarded packet twice)
#   rot.pcap, rot.pcap1, ...  rtr: tcpdump -i any -s 96 -C 1 (rotated every 1,000,000 bytes)
#   server.pcap      srv: tcpdump -i eth0 -s 96  (Ethernet)
# router.pcap is compared with the rotated parts (report diff printed), then deleted; the
# rotated parts and server.pcap are gzipped (pcapdoc reads .gz) to keep the folder small.
# Namespaces pdvF-mix-*; deleted on exit.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$HERE/../tools
PY=/usr/bin/python3
P=pdvF-mix
NS="cli1 cli2 cli3 dly rtr srv"
PIDS=()
cleanup() {
    local p; for p in "${PIDS[@]}"; do kill $p 2>/dev/null; done
    for n in $NS; do ip netns del $P-$n 2>/dev/null; done
}
trap cleanup EXIT
cleanup
for n in $NS; do
    ip netns add $P-$n || exit 1
    ip -n $P-$n link set lo up
done
for n in dly rtr; do
    ip netns exec $P-$n sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
        net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
done
i=0
for c in 1 3 4; do
    i=$((i+1))
    ip link add eth0 netns $P-cli$i type veth peer name c$i netns $P-dly || exit 1
    ip -n $P-cli$i addr add 10.66.$c.2/24 dev eth0; ip -n $P-cli$i link set eth0 up
    ip -n $P-dly addr add 10.66.$c.1/24 dev c$i; ip -n $P-dly link set c$i up
    ip -n $P-cli$i route add default via 10.66.$c.1
    ip -n $P-rtr route add 10.66.$c.0/24 via 10.66.5.1 2>/dev/null
done
ip link add to-rtr netns $P-dly type veth peer name to-dly netns $P-rtr || exit 1
ip link add to-srv netns $P-rtr type veth peer name eth0 netns $P-srv || exit 1
ip -n $P-dly addr add 10.66.5.1/24 dev to-rtr; ip -n $P-dly link set to-rtr up
ip -n $P-rtr addr add 10.66.5.2/24 dev to-dly; ip -n $P-rtr link set to-dly up
ip -n $P-rtr addr add 10.66.2.1/24 dev to-srv; ip -n $P-rtr link set to-srv up
ip -n $P-srv addr add 10.66.2.2/24 dev eth0; ip -n $P-srv link set eth0 up
ip -n $P-srv route add default via 10.66.2.1
ip -n $P-dly route add default via 10.66.5.2
for c in 1 3 4; do ip -n $P-rtr route replace 10.66.$c.0/24 via 10.66.5.1; done
# server: no TSO/GSO so every capture shows wire-sized segments
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null 2>&1
# delay box: everything arriving on c1..c3 / to-rtr goes through tun0 (held 15 ms)
ip -n $P-dly tuntap add dev tun0 mode tun
ip -n $P-dly link set tun0 up mtu 1500 txqueuelen 10000
ip netns exec $P-dly sysctl -qw net.ipv4.conf.tun0.rp_filter=0
ip netns exec $P-dly timeout 75 $PY "$TOOLS/tun_delay.py" --dev tun0 --delay-ms 15 --duration 70 >/tmp/$P-tun.log 2>&1 &
PIDS+=($!)
for k in $(seq 1 50); do grep -q "tun_delay:" /tmp/$P-tun.log 2>/dev/null && break; sleep 0.1; done
ip -n $P-dly route add default dev tun0 table 100
for d in c1 c2 c3 to-rtr; do ip -n $P-dly rule add iif $d lookup 100 pref 100; done
# router: ~1 % of the bulk download's segments dropped; cli2's SYNs to 8443 dropped
ip netns exec $P-rtr nft -f - <<'NFT'
table inet pdvf {
  chain fw {
    type filter hook forward priority 0; policy accept;
    ip saddr 10.66.2.2 tcp sport 8080 tcp flags & (syn|fin|rst) == 0 numgen random mod 100 == 0 counter drop
    ip saddr 10.66.3.2 tcp dport 8443 tcp flags syn counter drop
  }
}
NFT
for c in 1 2 3; do ip netns exec $P-cli$c ping -c1 -W2 10.66.2.2 >/dev/null 2>&1 || echo "ping cli$c failed"; done
ip netns exec $P-srv timeout 60 $PY "$HERE/mixapp.py" server 10.66.2.2 --timeout 55 >/tmp/$P-srv.log 2>&1 &
PIDS+=($!)
for k in $(seq 1 50); do ip netns exec $P-srv ss -Hltn "sport = :8080" | grep -q . && break; sleep 0.1; done
cd "$HERE" && rm -f router.pcap* rot.pcap* server.pcap*
ip netns exec $P-rtr timeout 60 tcpdump -Z root -n -U -i any -s 96 -w router.pcap 2>/tmp/$P-cap1.log & PIDS+=($!); C1=$!
ip netns exec $P-rtr timeout 60 tcpdump -Z root -n -U -i any -s 96 -C 1 -w rot.pcap 2>/tmp/$P-cap2.log & PIDS+=($!); C2=$!
ip netns exec $P-srv timeout 60 tcpdump -Z root -n -U -i eth0 -s 96 -w server.pcap 2>/tmp/$P-cap3.log & PIDS+=($!); C3=$!
for k in $(seq 1 50); do [ $(cat /tmp/$P-cap?.log 2>/dev/null | grep -c "listening on") = 3 ] && break; sleep 0.1; done
sleep 0.5
M="$PY $HERE/mixapp.py"
X() { local n=$1; shift; ip netns exec $P-$n timeout 45 $M "$@" --timeout 40; }
X cli1 keepalive 10.66.2.2 --count 60 --think-ms 400 > /tmp/$P-a.log 2>&1 & J=($!)
X cli2 keepalive 10.66.2.2 --count 45 --think-ms 500 > /tmp/$P-b.log 2>&1 & J+=($!)
X cli3 keepalive 10.66.2.2 --count 35 --think-ms 600 > /tmp/$P-c.log 2>&1 & J+=($!)
X cli1 dns 10.66.2.2 --count 20 --think-ms 1000 > /tmp/$P-d.log 2>&1 & J+=($!)
sleep 1
X cli2 short 10.66.2.2 --count 30 --think-ms 500 > /tmp/$P-e.log 2>&1 & J+=($!)
sleep 2
X cli3 bulk 10.66.2.2 > /tmp/$P-f.log 2>&1 & J+=($!)
sleep 2
X cli2 blocked 10.66.2.2 --connect-timeout 8 > /tmp/$P-g.log 2>&1 & J+=($!)
for j in "${J[@]}"; do wait $j; done
sleep 1
kill -INT $C1 $C2 $C3 2>/dev/null; wait $C1 $C2 $C3 2>/dev/null
cat /tmp/$P-[a-g].log
ip netns exec $P-rtr nft list ruleset | grep counter
rm -f /tmp/$P-*.log
# the single and the rotated router captures must give the same report (the two
# tcpdumps stamp packets separately, so times may differ by a microsecond)
PD=$HERE/../../../build/pcapdoc
if [ -x "$PD" ]; then
    "$PD" -q router.pcap | grep -v "Files:" > /tmp/$P-r1.txt
    "$PD" -q rot.pcap* | grep -v "Files:" > /tmp/$P-r2.txt
    diff /tmp/$P-r1.txt /tmp/$P-r2.txt | grep -c '^<' | sed 's/^/report lines that differ: /'
    rm -f /tmp/$P-r1.txt /tmp/$P-r2.txt
fi
# keep the rotated parts and the server capture, gzipped (< 300 KB together)
rm -f router.pcap
for f in rot.pcap* server.pcap; do gzip -9 -n "$f"; done
ls -l "$HERE"/*.gz
