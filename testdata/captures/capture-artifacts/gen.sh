#!/bin/bash
# capture-artifacts: capture-side effects that are not network problems.
# Two namespaces pdvC-art-cli (10.63.0.1, fd63::1) and pdvC-art-srv
# (10.63.0.2, fd63::2) joined by one veth pair (MTU 1500). The server sends
# 300000 B to the client (tcpapp.py, port 5066) in each run.
# Run 1 (TSO/GSO ON on the server eth0, the veth default):
#   tso-any-sll2.pcap  : `tcpdump -i any` in the server ns (LINUX_SLL2, -s 96):
#                        GSO super-segments larger than the MSS.
# Run 2 (TSO/GSO OFF; server eth0 enslaved to bridge br0, address on br0):
#   dup-bridge-any.pcap: `tcpdump -i any` in the server ns (SLL2, -s 96): every
#                        packet seen on eth0 AND br0 -> capture duplicates.
#   one-direction.pcap : client eth0 with BPF `src host 10.63.0.2` (-s 96):
#                        only the server's packets.
#   drops.pcap         : client eth0, full bidirectional capture (-s 96), then
#                        12 server data frames deleted with editcap (the
#                        client's ACKs for them kept) -> capture drops.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdvC-art
down() { ip netns del $P-cli 2>/dev/null; ip netns del $P-srv 2>/dev/null; return 0; }
up() { # $1 = bridge|plain
    ip netns add $P-cli && ip netns add $P-srv || return 1
    ip link add eth0 netns $P-cli type veth peer name eth0 netns $P-srv || return 1
    local n; for n in $P-cli $P-srv; do ip -n $n link set lo up
        ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0; done
    ip -n $P-cli addr add 10.63.0.1/24 dev eth0; ip -n $P-cli addr add fd63::1/64 dev eth0 nodad
    ip -n $P-cli link set eth0 up
    local SD=eth0
    if [ "$1" = bridge ]; then
        ip -n $P-srv link add br0 type bridge; ip -n $P-srv link set eth0 master br0
        ip -n $P-srv link set br0 up; SD=br0
    fi
    ip -n $P-srv addr add 10.63.0.2/24 dev $SD; ip -n $P-srv addr add fd63::2/64 dev $SD nodad
    ip -n $P-srv link set eth0 up
    ip netns exec $P-cli ping -c1 -W2 10.63.0.2 >/dev/null 2>&1 || true
}
transfer() {
    ip netns exec $P-srv timeout 20 $PY $APP server --addr 10.63.0.2 --port 5066 --mode send --bytes 300000 --timeout 15 &
    local S=$!
    wait_listen $P-srv 5066 || return 1
    "$@"
    ip netns exec $P-cli timeout 20 $PY $APP client --addr 10.63.0.2 --port 5066 --mode recv --timeout 15
    wait $S
    cap_stop_all
}
trap 'cap_stop_all 2>/dev/null; down' EXIT
down
# run 1
up plain || exit 1
ip netns exec $P-srv ethtool -K eth0 tso on gso on sg on >/dev/null
c1() { cap_start $P-srv any "$OUT_DIR/tso-any-sll2.pcap" 96 20 "tcp port 5066"; }
transfer c1
down
# run 2
up bridge || exit 1
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null
ip netns exec $P-srv ethtool -K br0 tso off gso off >/dev/null
c2() {
    cap_start $P-srv any "$OUT_DIR/dup-bridge-any.pcap" 96 20 "tcp port 5066"
    cap_start $P-cli eth0 "$OUT_DIR/one-direction.pcap" 96 20 "tcp port 5066 and src host 10.63.0.2"
    cap_start $P-cli eth0 "$OUT_DIR/drops-full.pcap" 96 20 "tcp port 5066"
}
transfer c2
down
# capture drops: delete the server's 30th-33rd, 80th-82nd and 140th-144th
# data frames (12 frames, all later ACKed by the client; ACKs kept)
DROP=$(tshark -r "$OUT_DIR/drops-full.pcap" -Y "ip.src==10.63.0.2 && tcp.len>0" -T fields -e frame.number 2>/dev/null |
       awk 'NR>=30&&NR<=33 || NR>=80&&NR<=82 || NR>=140&&NR<=144' | tr '\n' ' ')
echo "deleted frames: $DROP"
editcap "$OUT_DIR/drops-full.pcap" "$OUT_DIR/drops.pcap" $DROP
rm -f "$OUT_DIR/drops-full.pcap"
exit 0
