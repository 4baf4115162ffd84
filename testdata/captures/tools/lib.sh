#!/bin/bash
# Shared helpers for the pcapdoc capture generators (source this file).
TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
APP="$TOOLS/tcpapp.py"
. "$TOOLS/delay_router.sh"
CAP_PIDS=()

# pair_up PREFIX: two namespaces joined by one veth pair, MTU 1500
#   PREFIX-cli eth0 10.88.0.1/24 fd88::1/64 ; PREFIX-srv eth0 10.88.0.2/24 fd88::2/64
pair_up() {
    local P=$1
    case $P in pdd-*) ;; *) echo "prefix must start with pdd-" >&2; return 1;; esac
    ip netns add $P-cli && ip netns add $P-srv || return 1
    ip link add eth0 netns $P-cli type veth peer name eth0 netns $P-srv || return 1
    local n
    for n in $P-cli $P-srv; do
        ip -n $n link set lo up
        ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
    done
    ip -n $P-cli addr add 10.88.0.1/24 dev eth0; ip -n $P-cli addr add fd88::1/64 dev eth0 nodad
    ip -n $P-srv addr add 10.88.0.2/24 dev eth0; ip -n $P-srv addr add fd88::2/64 dev eth0 nodad
    ip -n $P-cli link set eth0 up; ip -n $P-srv link set eth0 up
    ip netns exec $P-cli ping -c1 -W2 10.88.0.2 >/dev/null 2>&1 || true
    ip netns exec $P-cli ping -6 -c1 -W2 fd88::2 >/dev/null 2>&1 || true
    return 0
}

pair_down() { ip netns del $1-cli 2>/dev/null; ip netns del $1-srv 2>/dev/null; return 0; }

# wait_listen NS PORT : wait (max 5 s) until a TCP listener exists
wait_listen() {
    local i
    for i in $(seq 1 50); do
        ip netns exec $1 ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
        sleep 0.1
    done
    echo "listener $1:$2 not up" >&2; return 1
}

# cap_start NS IFACE FILE SNAPLEN MAXSEC [filter...]
cap_start() {
    local ns=$1 ifc=$2 f=$3 snap=$4 t=$5; shift 5
    rm -f "$f"
    ip netns exec $ns timeout $t tcpdump -Z root -n -U --immediate-mode -i $ifc -s $snap -w "$f" "$@" 2>"$f.log" &
    CAP_PIDS+=($!)
    local i
    for i in $(seq 1 50); do grep -q "listening on" "$f.log" 2>/dev/null && break; sleep 0.1; done
    sleep 0.2
}

# cap_stop_all: stop every capture started with cap_start
cap_stop_all() {
    sleep 0.5
    local p
    for p in "${CAP_PIDS[@]}"; do kill -TERM $p 2>/dev/null; done
    for p in "${CAP_PIDS[@]}"; do wait $p 2>/dev/null; done
    CAP_PIDS=()
    rm -f "$OUT_DIR"/*.pcap.log
}

# chain_up PREFIX MID_MTU: client - r1 - r2 - server, all links MTU 1500
# except r1<->r2 which gets MID_MTU.
#   client eth0   10.88.1.2/24 fd88::1:2/112   (default via r1)
#   r1     to-cli 10.88.1.1/24 fd88::1:1/112 ; to-r2 10.88.3.1/24 fd88::3:1/112
#   r2     to-r1  10.88.3.2/24 fd88::3:2/112 ; to-srv 10.88.2.1/24 fd88::2:1/112
#   server eth0   10.88.2.2/24 fd88::2:2/112   (default via r2)
chain_up() {
    local P=$1 M=$2
    case $P in pdd-*) ;; *) echo "prefix must start with pdd-" >&2; return 1;; esac
    local n
    for n in cli r1 r2 srv; do
        ip netns add $P-$n || return 1
        ip -n $P-$n link set lo up
        ip netns exec $P-$n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    done
    for n in r1 r2; do
        ip netns exec $P-$n sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
            net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
    done
    ip link add eth0 netns $P-cli type veth peer name to-cli netns $P-r1 || return 1
    ip link add to-r2 netns $P-r1 type veth peer name to-r1 netns $P-r2 || return 1
    ip link add to-srv netns $P-r2 type veth peer name eth0 netns $P-srv || return 1
    ip -n $P-r1 link set to-r2 mtu $M; ip -n $P-r2 link set to-r1 mtu $M
    _a() { ip -n $P-$1 addr add $3 dev $2; ip -n $P-$1 addr add $4 dev $2 nodad; ip -n $P-$1 link set $2 up; }
    _a cli eth0 10.88.1.2/24 fd88::1:2/112
    _a r1 to-cli 10.88.1.1/24 fd88::1:1/112
    _a r1 to-r2 10.88.3.1/24 fd88::3:1/112
    _a r2 to-r1 10.88.3.2/24 fd88::3:2/112
    _a r2 to-srv 10.88.2.1/24 fd88::2:1/112
    _a srv eth0 10.88.2.2/24 fd88::2:2/112
    ip -n $P-cli route add default via 10.88.1.1; ip -n $P-cli -6 route add default via fd88::1:1
    ip -n $P-srv route add default via 10.88.2.1; ip -n $P-srv -6 route add default via fd88::2:1
    ip -n $P-r1 route add 10.88.2.0/24 via 10.88.3.2; ip -n $P-r1 -6 route add fd88::2:0/112 via fd88::3:2
    ip -n $P-r2 route add 10.88.1.0/24 via 10.88.3.1; ip -n $P-r2 -6 route add fd88::1:0/112 via fd88::3:1
    ip netns exec $P-cli ping -c1 -W2 10.88.2.2 >/dev/null 2>&1 || true
    ip netns exec $P-cli ping -6 -c1 -W2 fd88::2:2 >/dev/null 2>&1 || true
    return 0
}
chain_down() { local n; for n in cli r1 r2 srv; do ip netns del $1-$n 2>/dev/null; done; return 0; }
