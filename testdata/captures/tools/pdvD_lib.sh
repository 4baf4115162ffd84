#!/bin/bash
# pdvD_lib.sh (source it): sender - delay router - receiver for the pdvD-*
# validation captures (local-drop, tiny-writes). Same design as
# delay_router.sh (TUN + tun_delay.py, no netem) with the 10.64.x.x/fd64::
# addresses:
#   PREFIX-cli eth0   10.64.1.2/24 fd64::1:2/112 (default via the router)
#   PREFIX-rtr to-cli 10.64.1.1/24 fd64::1:1/112 ; to-srv 10.64.2.1/24 fd64::2:1/112
#   PREFIX-srv eth0   10.64.2.2/24 fd64::2:2/112
#   pdvd_up PREFIX ONE_WAY_DELAY_MS DURATION_S ; pdvd_down PREFIX
# PREFIX must start with pdvD-. cap_start / cap_stop_all / wait_listen come from lib.sh.
PDVD_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$PDVD_TOOLS/lib.sh"
pdvd_up() {
    local P=$1 D=$2 T=$3 n
    case $P in pdvD-*) ;; *) echo "prefix must start with pdvD-" >&2; return 1;; esac
    local C=$P-cli R=$P-rtr S=$P-srv
    for n in $C $R $S; do
        ip netns add $n || return 1
        ip -n $n link set lo up
        ip netns exec $n sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    done
    ip link add eth0 netns $C type veth peer name to-cli netns $R || return 1
    ip link add eth0 netns $S type veth peer name to-srv netns $R || return 1
    ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
        net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
    ip -n $C addr add 10.64.1.2/24 dev eth0; ip -n $C addr add fd64::1:2/112 dev eth0 nodad
    ip -n $S addr add 10.64.2.2/24 dev eth0; ip -n $S addr add fd64::2:2/112 dev eth0 nodad
    ip -n $R addr add 10.64.1.1/24 dev to-cli; ip -n $R addr add fd64::1:1/112 dev to-cli nodad
    ip -n $R addr add 10.64.2.1/24 dev to-srv; ip -n $R addr add fd64::2:1/112 dev to-srv nodad
    for l in "$C eth0" "$S eth0" "$R to-cli" "$R to-srv"; do set -- $l; ip -n $1 link set $2 up; done
    ip -n $C route add default via 10.64.1.1; ip -n $C -6 route add default via fd64::1:1
    ip -n $S route add default via 10.64.2.1; ip -n $S -6 route add default via fd64::2:1
    ip -n $R tuntap add dev tun0 mode tun
    ip -n $R link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec $R sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    ip netns exec $R timeout $((T+5)) $PY "$PDVD_TOOLS/tun_delay.py" --dev tun0 --delay-ms "$D" --duration "$T" \
        > "/tmp/$P-tun_delay.log" 2>&1 &
    echo $! > "/tmp/$P-tun_delay.pid"
    for n in $(seq 1 50); do grep -q "tun_delay:" "/tmp/$P-tun_delay.log" 2>/dev/null && break; sleep 0.1; done
    ip -n $R route add default dev tun0 table 100
    ip -n $R -6 route add default dev tun0 table 100
    for n in to-cli to-srv; do
        ip -n $R rule add iif $n lookup 100 pref 100
        ip -n $R -6 rule add iif $n lookup 100 pref 100
    done
    ip netns exec $C ping -c1 -W2 10.64.2.2 >/dev/null 2>&1 || true
    ip netns exec $C ping -6 -c1 -W2 fd64::2:2 >/dev/null 2>&1 || true
    return 0
}
pdvd_down() {
    local P=$1 n
    if [ -f "/tmp/$P-tun_delay.pid" ]; then
        kill "$(cat "/tmp/$P-tun_delay.pid")" 2>/dev/null
        rm -f "/tmp/$P-tun_delay.pid"
    fi
    for n in $P-cli $P-rtr $P-srv; do ip netns del $n 2>/dev/null; done
    rm -f "/tmp/$P-tun_delay.log"
    return 0
}
