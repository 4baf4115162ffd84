#!/bin/bash
# px1_run.sh SCENARIO: captures of issue 34's window / send-buffer rules.
# Namespaces px1-*, addresses 10.201.x.x / fd201:: (tools/vb_lib.sh with VB_NET=201).
# Topology (vb_dr_up): client 10.201.1.2 -- router (TUN delay, tun_delay.py) -- server 10.201.2.2.
# Each scenario writes one pcap per vantage into ../<name>-<vantage>/<name>-<vantage>.pcap and
# the kernel counters of the run into ../<name>-<first vantage>/counters.txt.
# The router vantage is tcpdump -i tun0 -Q in: each packet is recorded once, when
# tun_delay.py writes it back after its one-way delay, so every packet is seen one
# one-way delay after it left its sender (half the RTT on each side of the capture point).
# Every run is bounded (timeout), the namespaces are deleted on exit. Run as root.
#   px1_run.sh rmaxsmall|sndbuf64k|bulk40r
set -u
T=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VB_NET=201
VB_PREFIX=px1-
. "$T/vb_lib.sh"
CAPS=$(cd "$T/.." && pwd)
OUT_DIR=$CAPS
SRV=10.201.2.2
S=${1:?scenario}
P=px1-$S
NAME=
COUNTERS=
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
rm -f /tmp/$P-ss.txt

# p_up ONE_WAY_DELAY_MS: the three namespaces, offloads off everywhere (wire-size segments)
p_up() {
    vb_dr_down $P
    vb_dr_up $P "$1" 60 || exit 1
    local n
    for n in cli srv; do
        ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1
    done
    for n in to-cli to-srv; do ip netns exec $P-rtr ethtool -K $n tso off gso off gro off >/dev/null 2>&1; done
}

# p_caps NAME PORT SNAPLEN VANTAGE...: server = server eth0, client = client eth0,
# router = router tun0 inbound (after the delay, see above)
p_caps() {
    NAME=$1; local port=$2 snap=$3 v dir ns ifc extra; shift 3
    COUNTERS=
    for v in "$@"; do
        extra=
        case $v in
            server) ns=$P-srv ifc=eth0;; client) ns=$P-cli ifc=eth0;;
            router) ns=$P-rtr ifc=tun0 extra="-Q in";;
        esac
        dir=$CAPS/$NAME-$v; mkdir -p "$dir"
        [ -n "$COUNTERS" ] || COUNTERS=$dir/counters.txt
        OUT_DIR=$dir cap_start $ns $ifc "$dir/$NAME-$v.pcap" $snap 40 $extra tcp port $port
    done
}

# p_ss PORT DELAY...: ss -tmi on both hosts at these seconds after the start (background)
p_ss() {
    local port=$1 d; shift
    for d in "$@"; do
        ( sleep $d; echo "== ss -tmi at +${d}s (server)"; ip netns exec $P-srv ss -tmi state established "sport = :$port"
          echo "== ss -tmi at +${d}s (client)"; ip netns exec $P-cli ss -tmi state established "dport = :$port" ) >> /tmp/$P-ss.txt 2>&1 &
    done
}

p_end() {
    sleep 0.5
    cap_stop_all
    rm -f "$CAPS"/$NAME-*/*.pcap.log
    {
        echo "# $S: kernel counters after the run (nstat -as in fresh namespaces = this run only)"
        echo "== server"; ip netns exec $P-srv nstat -as | grep -v '^#'
        echo "== client"; ip netns exec $P-cli nstat -as | grep -v '^#'
        echo "== sysctl (client, server)"
        ip netns exec $P-cli sysctl net.ipv4.tcp_rmem net.core.rmem_max net.ipv4.tcp_wmem
        ip netns exec $P-srv sysctl net.ipv4.tcp_rmem net.core.rmem_max net.ipv4.tcp_wmem
        [ -f /tmp/$P-ss.txt ] && cat /tmp/$P-ss.txt
    } > "$COUNTERS"
    rm -f /tmp/$P-ss.txt
}

# bulk PORT BYTES "SERVER OPTS" "CLIENT OPTS": the server sends BYTES, the client reads to EOF.
# Both sockets use cubic (TCP_CONGESTION): new namespaces inherit bbr from the host and
# cannot switch their default.
bulk() {
    local port=$1 bytes=$2
    ip netns exec $P-srv timeout 35 $PY "$VBAPP" server --addr $SRV --port $port --mode send --bytes $bytes --cc cubic --timeout 30 $3 &
    local sp=$!
    wait_listen $P-srv $port || exit 1
    ip netns exec $P-cli timeout 35 $PY "$VBAPP" client --addr $SRV --port $port --mode recv --cc cubic --timeout 30 $4
    wait $sp
}

case $S in
rmaxsmall)  # RTT 80 ms, no rate limit, 1.5 MiB; the CLIENT receives; its namespace's tcp_rmem
    # maximum is the default buffer (131072): autotuning can never grow the buffer, no socket option
    p_up 40
    ip netns exec $P-cli sysctl -qw net.ipv4.tcp_rmem="4096 131072 131072" || exit 1
    p_caps rmem-max-small 5421 128 client server
    p_ss 5421 1.5 2.5 3.5
    bulk 5421 1572864 "" ""
    p_end ;;
sndbuf64k|bulk40r)  # RTT 40 ms (20 ms each way), no rate limit; the server sends 2 MiB with
    # SO_SNDBUF 32768 on its socket (sndbuf64k: the kernel doubles it to 65536), or 1 MiB with
    # default buffers (bulk40r: the recipe of ../bulk-rtt40-client|server, here seen from the router)
    p_up 20
    SO=""
    if [ $S = sndbuf64k ]; then
        N=sndbuf-64k; SO="--sndbuf 32768"; B=2097152
        # one-segment skbs: with 64 KB GSO skbs this kernel let the flight run far past the
        # send buffer (see ../sndbuf-64k-server/README.md)
        ip -n $P-srv link set eth0 gso_max_size 1500
        p_caps $N 5422 128 router client server
    else
        N=bulk-rtt40; B=1048576; p_caps $N 5422 128 router
    fi
    p_ss 5422 0.8 1.0 1.2 1.4 1.6 1.8 2.0 2.4
    bulk 5422 $B "$SO" ""
    p_end ;;
*) echo "unknown scenario $S" >&2; exit 2;;
esac
