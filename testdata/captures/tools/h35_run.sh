#!/bin/bash
# h35_run.sh SCENARIO: issue-35 captures with host snapshots (pcapdoc --host): the setups of
# tools/q24_run.sh (rmemsmall, sndbuf), plus tools/host_snap.sh taken IN the namespace of the
# host that matters before the transfer, every 0.5 s during it (ss) and after it. Namespaces
# px4-*, addresses 10.204.x.x (tools/vb_lib.sh with VB_NET=204); sndbuf: px6-*, 10.206.x.x (the
# run that made it, beside other runs using px4). Each scenario writes
# ../<name>/<name>.pcap and ../<name>/host.tgz. Bounded; namespaces deleted on exit. Run as root.
#   h35_run.sh rmem|sndbuf|localdrop
set -u
T=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S=${1:?scenario}
VB_NET=204
VB_PREFIX=px4-
case $S in sndbuf|localdrop) VB_NET=206; VB_PREFIX=px6-;; esac
. "$T/vb_lib.sh"
CAPS=$(cd "$T/.." && pwd)
SRV=10.$VB_NET.2.2
P=$VB_PREFIX$S
SNAP=$(mktemp -d /tmp/$VB_PREFIX-snap.XXXXXX)
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P; rm -rf "$SNAP"' EXIT

q_up() {
    vb_dr_down $P
    vb_dr_up $P "$1" 60 || exit 1
    local n
    for n in cli srv; do
        ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1
    done
    for n in to-cli to-srv; do ip netns exec $P-rtr ethtool -K $n tso off gso off gro off >/dev/null 2>&1; done
}

# bulk PORT BYTES "SERVER OPTS" "CLIENT OPTS" NS: the server sends BYTES, the client reads to
# EOF; ss snapshots of NS every 0.5 s while it runs (at most 30)
bulk() {
    local port=$1 bytes=$2 ns=$5
    ip netns exec $P-srv timeout 35 $PY "$VBAPP" server --addr $SRV --port $port --mode send --bytes $bytes --cc cubic --timeout 30 $3 &
    local sp=$!
    wait_listen $P-srv $port || exit 1
    ip netns exec $P-cli timeout 35 $PY "$VBAPP" client --addr $SRV --port $port --mode recv --cc cubic --timeout 30 $4 &
    local cp=$! k=0
    while kill -0 $cp 2>/dev/null && [ $k -lt 30 ]; do
        sleep 0.5; bash "$T/host_snap.sh" "$ns" "$SNAP" "during$(printf %02d $k)" ss; k=$((k + 1))
    done
    wait $cp; wait $sp
}

case $S in
sndbuf)  # the recipe of ../sndbuf-64k-server (tools/px1_run.sh sndbuf64k): RTT 40 ms, server
    # SO_SNDBUF 32768 (sk_sndbuf 65536), 2 MiB, and one-segment skbs on the server's eth0: with
    # 64 KB GSO skbs this kernel lets the flight run far past the send buffer
    q_up 20; N=sndbuf-host-server; NS=$P-srv
    ip -n $NS link set eth0 gso_max_size 1500
    mkdir -p "$CAPS/$N"
    OUT_DIR=$CAPS/$N; cap_start $NS eth0 "$CAPS/$N/$N.pcap" 128 40 tcp port 5402
    bash "$T/host_snap.sh" $NS "$SNAP" before
    bulk 5402 2097152 "--sndbuf 32768" "" $NS ;;
rmem)  # client tcp_rmem max 262144, RTT 100 ms, 1.5 MiB (tools/q24_run.sh rmemsmall)
    q_up 50; N=rmem-host-client; NS=$P-cli
    ip netns exec $NS sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
    mkdir -p "$CAPS/$N"
    OUT_DIR=$CAPS/$N; cap_start $NS eth0 "$CAPS/$N/$N.pcap" 128 40 tcp port 5403
    bash "$T/host_snap.sh" $NS "$SNAP" before
    bulk 5403 1572864 "" "" $NS ;;
localdrop)  # the setup of ../local-drop (a sender's own tbf drops): RTT 10 ms, client eth0
    # tbf rate 20mbit burst 4k limit 6000, the client sends 1.5 MiB; capture and snapshots on
    # the client (the sender)
    q_up 5; N=localdrop-host-sender; NS=$P-cli
    tc -n $NS qdisc add dev eth0 root tbf rate 20mbit burst 4k limit 6000 || exit 1
    mkdir -p "$CAPS/$N"
    ip netns exec $P-srv timeout 35 $PY "$VBAPP" server --addr $SRV --port 5404 --mode recv --timeout 30 &
    sp=$!
    wait_listen $P-srv 5404 || exit 1
    OUT_DIR=$CAPS/$N; cap_start $NS eth0 "$CAPS/$N/$N.pcap" 96 40 tcp port 5404
    bash "$T/host_snap.sh" $NS "$SNAP" before
    ip netns exec $NS timeout 35 $PY "$VBAPP" client --addr $SRV --port 5404 --mode send --bytes 1572864 --timeout 30 &
    cp=$! k=0
    while kill -0 $cp 2>/dev/null && [ $k -lt 30 ]; do
        sleep 0.5; bash "$T/host_snap.sh" "$NS" "$SNAP" "during$(printf %02d $k)" ss; k=$((k + 1))
    done
    wait $cp; wait $sp ;;
*) echo "unknown scenario $S" >&2; exit 2 ;;
esac
sleep 0.5
bash "$T/host_snap.sh" $NS "$SNAP" after
OUT_DIR=$CAPS/$N cap_stop_all
rm -f "$CAPS/$N"/*.pcap.log
tar -czf "$CAPS/$N/host.tgz" -C "$SNAP" .
echo "wrote $CAPS/$N/$N.pcap $CAPS/$N/host.tgz"
