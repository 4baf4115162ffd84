#!/bin/bash
# Helpers for the data-transfer validation captures (source this file).
# Namespaces must be prefixed pdvB-; addresses 10.62.x.x / fd62::.
# Reuses lib.sh (wait_listen, cap_start, cap_stop_all) and tun_delay.py.
VB_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$VB_TOOLS/lib.sh"
VBAPP="$VB_TOOLS/vbapp.py"
# Second octet of the addresses (10.N.x.x, fdN::); another set of captures
# sources this file with its own (ve_lib.sh: 65).
VB_NET=${VB_NET:-62}
VB_PREFIX=${VB_PREFIX:-pdvB-} # namespaces must start with it

_vb_ns() { ip netns add $1 || return 1; ip -n $1 link set lo up
    ip netns exec $1 sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0; }

# vb_pair_up P: P-cli eth0 10.62.0.1/24 fd62::1/64 <-> P-srv eth0 10.62.0.2/24 fd62::2/64
vb_pair_up() {
    local P=$1 n
    case $P in "$VB_PREFIX"*) ;; *) echo "prefix must start with $VB_PREFIX" >&2; return 1;; esac
    _vb_ns $P-cli && _vb_ns $P-srv || return 1
    ip link add eth0 netns $P-cli type veth peer name eth0 netns $P-srv || return 1
    ip -n $P-cli addr add 10.$VB_NET.0.1/24 dev eth0; ip -n $P-cli addr add fd$VB_NET::1/64 dev eth0 nodad
    ip -n $P-srv addr add 10.$VB_NET.0.2/24 dev eth0; ip -n $P-srv addr add fd$VB_NET::2/64 dev eth0 nodad
    ip -n $P-cli link set eth0 up; ip -n $P-srv link set eth0 up
    ip netns exec $P-cli ping -c1 -W2 10.$VB_NET.0.2 >/dev/null 2>&1 || true
    ip netns exec $P-cli ping -6 -c1 -W2 fd$VB_NET::2 >/dev/null 2>&1 || true
    return 0
}
vb_pair_down() { ip netns del $1-cli 2>/dev/null; ip netns del $1-srv 2>/dev/null; return 0; }

# vb_dr_up P DELAY_MS DURATION_S: client - router(TUN delay, tools/tun_delay.py) - server
#   client eth0 10.62.1.2/24 fd62::1:2/112 ; router to-cli 10.62.1.1 fd62::1:1, to-srv 10.62.2.1 fd62::2:1
#   server eth0 10.62.2.2/24 fd62::2:2/112. One-way delay DELAY_MS each direction.
vb_dr_up() {
    local P=$1 D=$2 T=$3
    case $P in "$VB_PREFIX"*) ;; *) echo "prefix must start with $VB_PREFIX" >&2; return 1;; esac
    local C=$P-cli R=$P-rtr S=$P-srv l dev
    _vb_ns $C && _vb_ns $R && _vb_ns $S || return 1
    ip link add eth0 netns $C type veth peer name to-cli netns $R || return 1
    ip link add eth0 netns $S type veth peer name to-srv netns $R || return 1
    ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
        net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
    ip -n $C addr add 10.$VB_NET.1.2/24 dev eth0; ip -n $C addr add fd$VB_NET::1:2/112 dev eth0 nodad
    ip -n $S addr add 10.$VB_NET.2.2/24 dev eth0; ip -n $S addr add fd$VB_NET::2:2/112 dev eth0 nodad
    ip -n $R addr add 10.$VB_NET.1.1/24 dev to-cli; ip -n $R addr add fd$VB_NET::1:1/112 dev to-cli nodad
    ip -n $R addr add 10.$VB_NET.2.1/24 dev to-srv; ip -n $R addr add fd$VB_NET::2:1/112 dev to-srv nodad
    for l in "$C eth0" "$S eth0" "$R to-cli" "$R to-srv"; do set -- $l; ip -n $1 link set $2 up; done
    ip -n $C route add default via 10.$VB_NET.1.1; ip -n $C -6 route add default via fd$VB_NET::1:1
    ip -n $S route add default via 10.$VB_NET.2.1; ip -n $S -6 route add default via fd$VB_NET::2:1
    ip -n $R tuntap add dev tun0 mode tun
    ip -n $R link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec $R sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    # VB_TUN_TOOL / VB_TUN_ARGS (optional): another forwarder with the same
    # options (tun_shape.py) and its extra arguments
    ip netns exec $R timeout $((T+5)) $PY "${VB_TUN_TOOL:-$VB_TOOLS/tun_delay.py}" --dev tun0 --delay-ms "$D" --duration "$T" \
        ${VB_TUN_ARGS:-} > "/tmp/$P-tun_delay.log" 2>&1 &
    echo $! > "/tmp/$P-tun_delay.pid"
    local i
    for i in $(seq 1 50); do grep -q "tun_delay:" "/tmp/$P-tun_delay.log" 2>/dev/null && break; sleep 0.1; done
    ip -n $R route add default dev tun0 table 100
    ip -n $R -6 route add default dev tun0 table 100
    for dev in to-cli to-srv; do
        ip -n $R rule add iif $dev lookup 100 pref 100
        ip -n $R -6 rule add iif $dev lookup 100 pref 100
    done
    ip netns exec $C ping -c1 -W2 10.$VB_NET.2.2 >/dev/null 2>&1 || true
    ip netns exec $C ping -6 -c1 -W2 fd$VB_NET::2:2 >/dev/null 2>&1 || true
    return 0
}
vb_dr_down() {
    local P=$1 n
    if [ -f "/tmp/$P-tun_delay.pid" ]; then kill "$(cat "/tmp/$P-tun_delay.pid")" 2>/dev/null; rm -f "/tmp/$P-tun_delay.pid"; fi
    for n in $P-cli $P-rtr $P-srv; do ip netns del $n 2>/dev/null; done
    rm -f "/tmp/$P-tun_delay.log"; return 0
}
