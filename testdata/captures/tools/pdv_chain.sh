#!/bin/bash
# pdv_chain.sh (source it): validation-variant chain for the pdvC-* captures.
#   pdv_chain_up PREFIX MID_MTU : client - r1 - r2 - server; every link MTU
#   1500 except r1<->r2 = MID_MTU (both ends).
#     client eth0   10.63.1.2/24 fd63::1:2/112 (default via r1)
#     r1     to-cli 10.63.1.1/24 fd63::1:1/112 ; to-r2 10.63.3.1/24 fd63::3:1/112
#     r2     to-r1  10.63.3.2/24 fd63::3:2/112 ; to-srv 10.63.2.1/24 fd63::2:1/112
#     server eth0   10.63.2.2/24 fd63::2:2/112 (default via r2)
#   pdv_chain_down PREFIX
# PREFIX must start with pdvC-. Uses cap_start/cap_stop_all/wait_listen from lib.sh.
PDV_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$PDV_TOOLS/lib.sh"
pdv_chain_up() {
    local P=$1 M=$2 n
    case $P in pdvC-*) ;; *) echo "prefix must start with pdvC-" >&2; return 1;; esac
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
    _pa() { ip -n $P-$1 addr add $3 dev $2; ip -n $P-$1 addr add $4 dev $2 nodad; ip -n $P-$1 link set $2 up; }
    _pa cli eth0 10.63.1.2/24 fd63::1:2/112
    _pa r1 to-cli 10.63.1.1/24 fd63::1:1/112
    _pa r1 to-r2 10.63.3.1/24 fd63::3:1/112
    _pa r2 to-r1 10.63.3.2/24 fd63::3:2/112
    _pa r2 to-srv 10.63.2.1/24 fd63::2:1/112
    _pa srv eth0 10.63.2.2/24 fd63::2:2/112
    ip -n $P-cli route add default via 10.63.1.1; ip -n $P-cli -6 route add default via fd63::1:1
    ip -n $P-srv route add default via 10.63.2.1; ip -n $P-srv -6 route add default via fd63::2:1
    ip -n $P-r1 route add 10.63.2.0/24 via 10.63.3.2; ip -n $P-r1 -6 route add fd63::2:0/112 via fd63::3:2
    ip -n $P-r2 route add 10.63.1.0/24 via 10.63.3.1; ip -n $P-r2 -6 route add fd63::1:0/112 via fd63::3:1
    ip netns exec $P-cli ping -c1 -W2 10.63.2.2 >/dev/null 2>&1 || true
    ip netns exec $P-cli ping -6 -c1 -W2 fd63::2:2 >/dev/null 2>&1 || true
    return 0
}
pdv_chain_down() { local n; for n in cli r1 r2 srv; do ip netns del $1-$n 2>/dev/null; done; return 0; }
