#!/bin/bash
# Helpers for the issue-19 regression captures (source this file):
# captures from paths that misbehave the way real networks do (reordering,
# a stall in one direction, a late SYN-ACK), made with tun_shape.py.
# Namespaces must be prefixed pdw-; addresses 10.92.x.x / fd92::.
# The topology of vb_lib.sh (client 10.92.1.2 - router - server 10.92.2.2).
VB_NET=92
VB_PREFIX=pdw-
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/vb_lib.sh"
# pdw_dr_up P DELAY_MS DURATION_S [tun_shape.py options...]
pdw_dr_up() {
    local P=$1 D=$2 T=$3; shift 3
    VB_TUN_TOOL="$VB_TOOLS/tun_shape.py" VB_TUN_ARGS="$*" vb_dr_up $P $D $T
}
# pdw_dr_log P: the forwarder's event lines (call before pdw_dr_down)
pdw_dr_log() { grep -v "^tun_delay:" "/tmp/$1-tun_delay.log" 2>/dev/null; }
pdw_dr_down() { vb_dr_down "$@"; }

# pdw_chain_up P DELAY_MS DURATION_S [tun_shape.py options for r2...]
#   client eth0 10.92.1.2 -- r1 (to-cli 10.92.1.1, to-r2 10.92.3.1; tun_delay.py,
#   DELAY_MS each way) -- r2 (to-r1 10.92.3.2, to-srv 10.92.2.1; tun_shape.py with
#   no delay and the given misbehaviour) -- server eth0 10.92.2.2. IPv4 only.
#   A capture on r2's to-r1 is next to the server in time (the handshake answer
#   comes back within a millisecond) yet behind r2's misbehaviour.
pdw_chain_up() {
    local P=$1 D=$2 T=$3 n r; shift 3
    case $P in pdw-*) ;; *) echo "prefix must start with pdw-" >&2; return 1;; esac
    for n in cli r1 r2 srv; do _vb_ns $P-$n || return 1; done
    ip link add eth0 netns $P-cli type veth peer name to-cli netns $P-r1 || return 1
    ip link add to-r2 netns $P-r1 type veth peer name to-r1 netns $P-r2 || return 1
    ip link add to-srv netns $P-r2 type veth peer name eth0 netns $P-srv || return 1
    _pa() { ip -n $P-$1 addr add $3 dev $2; ip -n $P-$1 link set $2 up; }
    _pa cli eth0 10.92.1.2/24; _pa r1 to-cli 10.92.1.1/24; _pa r1 to-r2 10.92.3.1/24
    _pa r2 to-r1 10.92.3.2/24; _pa r2 to-srv 10.92.2.1/24; _pa srv eth0 10.92.2.2/24
    ip -n $P-cli route add default via 10.92.1.1
    ip -n $P-srv route add default via 10.92.2.1
    ip -n $P-r1 route add 10.92.2.0/24 via 10.92.3.2
    ip -n $P-r2 route add 10.92.1.0/24 via 10.92.3.1
    for r in r1 r2; do
        ip netns exec $P-$r sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
            net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
        ip -n $P-$r tuntap add dev tun0 mode tun
        ip -n $P-$r link set tun0 up mtu 1500 txqueuelen 10000
        ip netns exec $P-$r sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    done
    ip netns exec $P-r1 timeout $((T+5)) $PY "$VB_TOOLS/tun_delay.py" --dev tun0 --delay-ms "$D" --duration "$T" \
        > "/tmp/$P-r1-tun.log" 2>&1 &
    echo $! > "/tmp/$P-r1-tun.pid"
    ip netns exec $P-r2 timeout $((T+5)) $PY "$VB_TOOLS/tun_shape.py" --dev tun0 --delay-ms 0 --duration "$T" "$@" \
        > "/tmp/$P-r2-tun.log" 2>&1 &
    echo $! > "/tmp/$P-r2-tun.pid"
    local i
    for r in r1 r2; do
        for i in $(seq 1 50); do grep -q "tun_delay:" "/tmp/$P-$r-tun.log" 2>/dev/null && break; sleep 0.1; done
    done
    ip -n $P-r1 route add default dev tun0 table 100
    ip -n $P-r2 route add default dev tun0 table 100
    ip -n $P-r1 rule add iif to-cli lookup 100 pref 100; ip -n $P-r1 rule add iif to-r2 lookup 100 pref 100
    ip -n $P-r2 rule add iif to-r1 lookup 100 pref 100; ip -n $P-r2 rule add iif to-srv lookup 100 pref 100
    ip netns exec $P-cli ping -c1 -W2 10.92.2.2 >/dev/null 2>&1 || true
    return 0
}
pdw_chain_log() { grep -v "^tun_delay:" "/tmp/$1-r2-tun.log" 2>/dev/null; }
pdw_chain_down() {
    local P=$1 n r
    for r in r1 r2; do
        if [ -f "/tmp/$P-$r-tun.pid" ]; then kill "$(cat "/tmp/$P-$r-tun.pid")" 2>/dev/null; rm -f "/tmp/$P-$r-tun.pid"; fi
        rm -f "/tmp/$P-$r-tun.log"
    done
    for n in cli r1 r2 srv; do ip netns del $P-$n 2>/dev/null; done
    return 0
}
