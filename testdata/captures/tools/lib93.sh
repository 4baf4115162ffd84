#!/bin/bash
# lib93.sh: helpers for the issue-19 captures ("from the wild" false alarms
# and misses). Source it. Namespaces must start with pdt-, addresses stay in
# 10.93.0.0/16 and fd93::/16. Also sources lib.sh for cap_start /
# cap_stop_all / wait_listen / PY.
#
#   n93_pair P N        P-a eth0 10.93.N.1/24 fd93::N:1/112  <veth>
#                       P-b eth0 10.93.N.2/24 fd93::N:2/112
#   n93_chain P N       client -- router -- server:
#                       P-cli eth0   10.93.N.2/24     fd93::N:2/112  (gw .1)
#                       P-rtr to-cli 10.93.N.1/24     fd93::N:1/112
#                             to-srv 10.93.N+1.1/24   fd93::N+1:1/112
#                       P-srv eth0   10.93.N+1.2/24   fd93::N+1:2/112 (gw .1)
#   n93_tunpath P CMD.. in P-rtr: tun0 + policy routing (iif to-cli / iif
#                       to-srv lookup 100: default dev tun0), CMD (a TUN
#                       forwarder such as tun_delay.py or isn_shift.py,
#                       given --dev tun0 by the caller) runs in P-rtr and
#                       writes each packet back into tun0, whence the main
#                       table forwards it (TTL decremented twice).
#   n93_down P          delete every P-* namespace of the above, stop CMD
TOOLS93=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$TOOLS93/lib.sh"

# n93_warm NS ADDR: resolve the neighbours on the way to ADDR (there is no
# ping on this machine) with a TCP connect to the closed port 9: SYN, RST,
# before any capture starts, and no ICMP error left in flight.
n93_warm() {
    ip netns exec $1 $PY -c 'import socket,sys; a=sys.argv[1]; s=socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET); s.settimeout(2)
try: s.connect((a, 9))
except OSError: pass' $2 2>/dev/null
}

_n93_check() {
    case $1 in pdt-*) return 0;; *) echo "prefix must start with pdt-" >&2; return 1;; esac
}

_n93_ns() {
    ip netns add $1 || return 1
    ip -n $1 link set lo up
    ip netns exec $1 sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
}

n93_pair() {
    local P=$1 N=$2
    _n93_check $P || return 1
    _n93_ns $P-a && _n93_ns $P-b || return 1
    ip link add eth0 netns $P-a type veth peer name eth0 netns $P-b || return 1
    ip -n $P-a addr add 10.93.$N.1/24 dev eth0; ip -n $P-a addr add fd93::$N:1/112 dev eth0 nodad
    ip -n $P-b addr add 10.93.$N.2/24 dev eth0; ip -n $P-b addr add fd93::$N:2/112 dev eth0 nodad
    ip -n $P-a link set eth0 up; ip -n $P-b link set eth0 up
    n93_warm $P-a 10.93.$N.2; n93_warm $P-a fd93::$N:2
    return 0
}

n93_chain() {
    local P=$1 N=$2 M=$(($2 + 1))
    _n93_check $P || return 1
    local n
    for n in cli rtr srv; do _n93_ns $P-$n || return 1; done
    ip netns exec $P-rtr sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
        net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
    ip link add eth0 netns $P-cli type veth peer name to-cli netns $P-rtr || return 1
    ip link add eth0 netns $P-srv type veth peer name to-srv netns $P-rtr || return 1
    ip -n $P-cli addr add 10.93.$N.2/24 dev eth0; ip -n $P-cli addr add fd93::$N:2/112 dev eth0 nodad
    ip -n $P-rtr addr add 10.93.$N.1/24 dev to-cli; ip -n $P-rtr addr add fd93::$N:1/112 dev to-cli nodad
    ip -n $P-rtr addr add 10.93.$M.1/24 dev to-srv; ip -n $P-rtr addr add fd93::$M:1/112 dev to-srv nodad
    ip -n $P-srv addr add 10.93.$M.2/24 dev eth0; ip -n $P-srv addr add fd93::$M:2/112 dev eth0 nodad
    local l
    for l in "cli eth0" "srv eth0" "rtr to-cli" "rtr to-srv"; do set -- $l; ip -n $P-$1 link set $2 up; done
    ip -n $P-cli route add default via 10.93.$N.1; ip -n $P-cli -6 route add default via fd93::$N:1
    ip -n $P-srv route add default via 10.93.$M.1; ip -n $P-srv -6 route add default via fd93::$M:1
    n93_warm $P-cli 10.93.$M.2; n93_warm $P-cli fd93::$M:2
    n93_warm $P-srv 10.93.$N.2; n93_warm $P-srv fd93::$N:2
    return 0
}

n93_tunpath() {
    local P=$1; shift
    local R=$P-rtr
    ip -n $R tuntap add dev tun0 mode tun || return 1
    ip -n $R link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec $R sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    ip netns exec $R "$@" > "/tmp/$P-tunpath.log" 2>&1 &
    echo $! > "/tmp/$P-tunpath.pid"
    local i
    for i in $(seq 1 50); do grep -Eq "ready|tun_delay:" "/tmp/$P-tunpath.log" 2>/dev/null && break; sleep 0.1; done
    ip -n $R route add default dev tun0 table 100
    ip -n $R -6 route add default dev tun0 table 100
    local dev
    for dev in to-cli to-srv; do
        ip -n $R rule add iif $dev lookup 100 pref 100
        ip -n $R -6 rule add iif $dev lookup 100 pref 100
    done
    return 0
}

n93_down() {
    local P=$1 n
    if [ -f "/tmp/$P-tunpath.pid" ]; then
        kill "$(cat "/tmp/$P-tunpath.pid")" 2>/dev/null
        rm -f "/tmp/$P-tunpath.pid"
        tail -1 "/tmp/$P-tunpath.log" 2>/dev/null
        rm -f "/tmp/$P-tunpath.log"
    fi
    for n in a b cli rtr srv; do ip netns del $P-$n 2>/dev/null; done
    return 0
}
