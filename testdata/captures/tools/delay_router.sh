#!/bin/bash
# delay_router.sh: client <-> router <-> server with a fixed one-way delay
# implemented by a TUN device + tun_delay.py in the router (no netem).
#
#   delay_router.sh up   PREFIX DELAY_MS DURATION_S   create and start
#   delay_router.sh down PREFIX                        stop and delete
#
# Namespaces: PREFIX-cli, PREFIX-rtr, PREFIX-srv (PREFIX must start with pdd-)
#   client  eth0   10.88.1.2/24  fd88::1:2/112   gw 10.88.1.1 / fd88::1:1
#   router  to-cli 10.88.1.1/24  fd88::1:1/112
#           to-srv 10.88.2.1/24  fd88::2:1/112
#   server  eth0   10.88.2.2/24  fd88::2:2/112   gw 10.88.2.1 / fd88::2:1
# In the router, packets arriving on to-cli or to-srv are policy-routed
# (table 100) into tun0; tun_delay.py holds each one DELAY_MS and writes it
# back into tun0; from there the main table forwards it to its destination.
# Each direction therefore gets DELAY_MS of delay (RTT = 2*DELAY_MS).
# The TTL / hop limit is decremented twice in the router (2 forwards).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3

dr_up() {
    local P=$1 D=$2 T=$3
    case $P in pdd-*) ;; *) echo "prefix must start with pdd-" >&2; return 1;; esac
    local C=$P-cli R=$P-rtr S=$P-srv
    for n in $C $R $S; do ip netns add $n || return 1; ip -n $n link set lo up; done
    ip link add eth0 netns $C type veth peer name to-cli netns $R || return 1
    ip link add eth0 netns $S type veth peer name to-srv netns $R || return 1
    ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
        net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
    for n in $C $S; do
        ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0
    done
    ip netns exec $R sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
        net.ipv6.conf.to-cli.accept_dad=0 net.ipv6.conf.to-srv.accept_dad=0
    ip -n $C addr add 10.88.1.2/24 dev eth0; ip -n $C addr add fd88::1:2/112 dev eth0 nodad
    ip -n $S addr add 10.88.2.2/24 dev eth0; ip -n $S addr add fd88::2:2/112 dev eth0 nodad
    ip -n $R addr add 10.88.1.1/24 dev to-cli; ip -n $R addr add fd88::1:1/112 dev to-cli nodad
    ip -n $R addr add 10.88.2.1/24 dev to-srv; ip -n $R addr add fd88::2:1/112 dev to-srv nodad
    for l in "$C eth0" "$S eth0" "$R to-cli" "$R to-srv"; do set -- $l; ip -n $1 link set $2 up; done
    ip -n $C route add default via 10.88.1.1; ip -n $C -6 route add default via fd88::1:1
    ip -n $S route add default via 10.88.2.1; ip -n $S -6 route add default via fd88::2:1
    # TUN delay path
    ip -n $R tuntap add dev tun0 mode tun
    ip -n $R link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec $R sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    ip netns exec $R timeout $((T+5)) $PY "$HERE/tun_delay.py" --dev tun0 --delay-ms "$D" --duration "$T" \
        > "/tmp/$P-tun_delay.log" 2>&1 &
    echo $! > "/tmp/$P-tun_delay.pid"
    local i
    for i in $(seq 1 50); do grep -q "tun_delay:" "/tmp/$P-tun_delay.log" 2>/dev/null && break; sleep 0.1; done
    ip -n $R route add default dev tun0 table 100
    ip -n $R -6 route add default dev tun0 table 100
    for dev in to-cli to-srv; do
        ip -n $R rule add iif $dev lookup 100 pref 100
        ip -n $R -6 rule add iif $dev lookup 100 pref 100
    done
    # warm up neighbour caches so the capture does not start with ARP/ND
    ip netns exec $C ping -c1 -W2 10.88.2.2 >/dev/null 2>&1 || true
    ip netns exec $C ping -6 -c1 -W2 fd88::2:2 >/dev/null 2>&1 || true
    return 0
}

dr_down() {
    local P=$1
    if [ -f "/tmp/$P-tun_delay.pid" ]; then
        kill "$(cat "/tmp/$P-tun_delay.pid")" 2>/dev/null
        rm -f "/tmp/$P-tun_delay.pid"
    fi
    for n in $P-cli $P-rtr $P-srv; do ip netns del $n 2>/dev/null; done
    cat "/tmp/$P-tun_delay.log" 2>/dev/null | tail -1
    rm -f "/tmp/$P-tun_delay.log"
    return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case ${1:-} in
        up) shift; dr_up "$@";;
        down) shift; dr_down "$@";;
        *) echo "usage: $0 up PREFIX DELAY_MS DURATION_S | down PREFIX" >&2; exit 2;;
    esac
fi
