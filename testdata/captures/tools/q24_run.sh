#!/bin/bash
# q24_run.sh SCENARIO: the issue-24 captures (queueing delay, send/receive buffer limits, ECN).
# Namespaces pdq-*, addresses 10.91.x.x / fd91:: (tools/vb_lib.sh with VB_NET=91).
# Topology (vb_dr_up): client 10.91.1.2 -- router (TUN delay, tun_delay.py) -- server 10.91.2.2.
# Each scenario writes one pcap per vantage into ../<name>-<vantage>/<name>-<vantage>.pcap and
# the kernel counters of the run into ../<name>-<first vantage>/counters.txt.
# Every run is bounded (timeout), the namespaces are deleted on exit. Run as root.
#   q24_run.sh bloat|shortq|sndbuf|wmem|applim|bulk40|rmemsmall|rcvbuf|rmemcap|rmemdef|ecndrop|ecnok|ecnce
set -u
T=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VB_NET=91
VB_PREFIX=pdq-
. "$T/vb_lib.sh"
CAPS=$(cd "$T/.." && pwd)
OUT_DIR=$CAPS
SRV=10.91.2.2
S=${1:?scenario}
P=pdq-$S
NAME=
COUNTERS=
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
rm -f /tmp/$P-ss.txt

# q_up ONE_WAY_DELAY_MS: the three namespaces, offloads off everywhere (wire-size segments in
# every capture).
q_up() {
    vb_dr_down $P
    vb_dr_up $P "$1" 60 || exit 1
    local n
    for n in cli srv; do
        ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1
    done
    for n in to-cli to-srv; do ip netns exec $P-rtr ethtool -K $n tso off gso off gro off >/dev/null 2>&1; done
}

# q_caps NAME PORT SNAPLEN VANTAGE...: one capture per vantage (server = server eth0,
# client = client eth0, router = router to-srv, router-cli = router to-cli), port filter.
q_caps() {
    NAME=$1; local port=$2 snap=$3 v dir ns ifc; shift 3
    COUNTERS=
    for v in "$@"; do
        case $v in
            server) ns=$P-srv ifc=eth0;; client) ns=$P-cli ifc=eth0;;
            router) ns=$P-rtr ifc=to-srv;; router-cli) ns=$P-rtr ifc=to-cli; v=router;;
        esac
        dir=$CAPS/$NAME-$v; mkdir -p "$dir"
        [ -n "$COUNTERS" ] || COUNTERS=$dir/counters.txt
        OUT_DIR=$dir cap_start $ns $ifc "$dir/$NAME-$v.pcap" $snap 40 tcp port $port
    done
}

# q_ss PORT DELAY...: ss -tmi on both hosts at these seconds after the start (background)
q_ss() {
    local port=$1 d; shift
    for d in "$@"; do
        ( sleep $d; echo "== ss -tmi at +${d}s (server)"; ip netns exec $P-srv ss -tmi state established "sport = :$port"
          echo "== ss -tmi at +${d}s (client)"; ip netns exec $P-cli ss -tmi state established "dport = :$port" ) >> /tmp/$P-ss.txt 2>&1 &
    done
}

# q_end: stop the captures, write the counters (nstat of the fresh namespaces = this run)
q_end() {
    sleep 0.5
    cap_stop_all
    rm -f "$CAPS"/$NAME-*/*.pcap.log
    {
        echo "# $S: kernel counters after the run (nstat -as in fresh namespaces = this run only)"
        echo "== server"; ip netns exec $P-srv nstat -as | grep -v '^#'
        echo "== client"; ip netns exec $P-cli nstat -as | grep -v '^#'
        echo "== router qdisc to-cli"; ip netns exec $P-rtr tc -s qdisc show dev to-cli
        ip netns exec $P-rtr nft list ruleset 2>/dev/null | grep counter
        [ -f /tmp/$P-ss.txt ] && cat /tmp/$P-ss.txt
    } > "$COUNTERS"
    rm -f /tmp/$P-ss.txt
}

# bulk PORT BYTES "SERVER OPTS" "CLIENT OPTS": the server sends BYTES, the client reads to EOF.
# Both sockets use cubic (TCP_CONGESTION): new namespaces here inherit bbr from the host and
# cannot switch their default (sysctl: not permitted); cubic is the usual Linux default.
bulk() {
    local port=$1 bytes=$2
    ip netns exec $P-srv timeout 35 $PY "$VBAPP" server --addr $SRV --port $port --mode send --bytes $bytes --cc cubic --timeout 30 $3 &
    local sp=$!
    wait_listen $P-srv $port || exit 1
    ip netns exec $P-cli timeout 35 $PY "$VBAPP" client --addr $SRV --port $port --mode recv --cc cubic --timeout 30 $4
    wait $sp
}

case $S in
bloat|shortq)  # (1) 3 Mbit/s bottleneck (tbf on the router's egress to the client), RTT 10 ms
    q_up 5
    if [ $S = bloat ]; then LIM=400kb; else LIM=8kb; fi
    ip netns exec $P-rtr tc qdisc add dev to-cli root tbf rate 3mbit burst 5kb limit $LIM
    [ $S = bloat ] && N=queue-deep || N=queue-short
    q_caps $N 5401 128 server client
    q_ss 5401 1 2 3
    bulk 5401 1572864 "" ""
    q_end ;;
sndbuf|wmem|applim|bulk40)  # (2) RTT 40 ms, no rate limit (the forwarder moves ~100 Mbit/s), 1 MiB
    q_up 20
    SO=""
    case $S in
        sndbuf) N=sndbuf-small; SO="--sndbuf 16384";;
        wmem) N=wmem-small; ip netns exec $P-srv sysctl -qw net.ipv4.tcp_wmem="4096 16384 32768";;
        applim) N=app-limited; SO="--bursts 64 --idle 0.1";;
        bulk40) N=bulk-rtt40;;
    esac
    q_caps $N 5402 128 server client
    q_ss 5402 0.5 1
    bulk 5402 1048576 "$SO" ""
    q_end ;;
rmemsmall|rcvbuf|rmemcap|rmemdef)  # (3) RTT 100 ms, no rate limit, 1.5 MiB; the CLIENT receives
    q_up 50
    CO=""
    case $S in
        rmemsmall) N=rmem-small; ip netns exec $P-cli sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144";;
        rcvbuf) N=rcvbuf-fixed; CO="--rcvbuf 65536";;
        # net.core.rmem_max is not per-namespace (read-only inside one): this run sets
        # SO_RCVBUF to 212992, the Linux default rmem_max, which is exactly what an application
        # asking for more gets when rmem_max is left at its default (see the README).
        rmemcap) N=rmemmax-cap; CO="--rcvbuf 212992";;
        rmemdef) N=rmem-default;;
    esac
    q_caps $N 5403 128 client server
    q_ss 5403 0.5 1.5
    bulk 5403 1572864 "" "$CO"
    q_end ;;
ecndrop|ecnok)  # (4) client tcp_ecn=1, RTT 10 ms; the router drops SYNs with ECE+CWR (ecndrop)
    q_up 5
    ip netns exec $P-cli sysctl -qw net.ipv4.tcp_ecn=1
    if [ $S = ecndrop ]; then
        N=ecn-syn-drop
        ip netns exec $P-rtr nft -f - <<'NFT' || exit 1
table inet pdq {
 chain synfilter {
  type filter hook forward priority 0; policy accept;
  tcp flags & (syn | ack | ecn | cwr) == syn | ecn | cwr counter drop
 }
}
NFT
    else
        N=ecn-syn-ok
    fi
    q_caps $N 5404 128 client router-cli
    ip netns exec $P-srv timeout 20 $PY "$VBAPP" server --addr $SRV --port 5404 --mode reqresp --parts 300 --resp-size 30000 --cc cubic --timeout 15 &
    SP=$!
    wait_listen $P-srv 5404 || exit 1
    /usr/bin/time -f "client %e s" ip netns exec $P-cli timeout 20 $PY "$VBAPP" client --addr $SRV --port 5404 --mode reqresp --parts 300 --resp-size 30000 --count 3 --cc cubic --timeout 15
    wait $SP
    q_end ;;
ecnce)  # (4b) ECN on the client (tcp_ecn=1; the server accepts, default 2), RTT 20 ms, no rate
    # limit; the router sets CE on ~1% of the ECT(0) data packets toward the client (no AQM qdisc
    # exists on this kernel: no fq_codel/codel/red/pie/cake modules), nothing is dropped.
    q_up 10
    ip netns exec $P-cli sysctl -qw net.ipv4.tcp_ecn=1
    ip netns exec $P-rtr nft -f - <<'NFT' || exit 1
table ip pdq {
 chain cemark {
  type filter hook forward priority 0; policy accept;
  iifname "tun0" oifname "to-cli" tcp sport 5405 meta length > 200 ip ecn ect0 numgen random mod 100 < 1 counter ip ecn set ce
 }
}
NFT
    N=ecn-ce-marks
    q_caps $N 5405 128 router-cli server
    bulk 5405 1048576 "" ""
    q_end ;;
*) echo "unknown scenario $S" >&2; exit 2;;
esac
