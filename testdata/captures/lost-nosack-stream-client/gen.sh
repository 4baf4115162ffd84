#!/bin/bash
# pcapdoc golden captures: lost-nosack-stream-{client,server} (VARIANT=problem),
# the healthy twins lost-nosack-stream-ok-{client,server} (VARIANT=ok) and the true PAWS
# twins paws-nosack-stream-{client,server} (VARIANT=paws). Run as root; ~12 s; cleans up.
#
# client px2-lsN-cli 10.202.N.2 -- router px2-lsN-rtr (TUN forwarder ../tools/tun_mangle.py,
# 10 ms each way) -- server px2-lsN-srv 10.202.(N+128).2:8080. net.ipv4.tcp_sack=0 in the
# server's namespace (the SYN-ACK carries no SACK-permitted: SACK off on the connection);
# timestamps on (default). stream.py: the client writes 60 messages of 200 bytes, one every
# 100 ms (TCP_NODELAY), then closes; the server reads to EOF.
#   problem: messages 10 and 30 start with "LOST"; nft on the server's input hook drops the
#            first packet that begins with "LOST" at each sequence number (a set of the
#            sequence numbers already dropped lets the resends through): each of the two is
#            lost after both capture points. The next message arrives out of order and draws a
#            duplicate ACK without SACK whose TSecr is the last in-order TSval (older than the
#            lost segment's); the client resends on its retransmission timer.
#   ok:      the same stream, no drop.
#   paws:    no drop; the forwarder subtracts 2^30 from the client's TSval from its 10th data
#            segment on (a middlebox whose timestamp rewriting jumps backwards): the server's
#            PAWS check drops every segment from then on.
# Captured at the same time on the client's veth c0 (the sender) and the server's veth s0 (the
# receiver, before its netfilter input hook), -s 128.

# --- common begin (identical in every pcapdoc gen.sh) ---
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
PY=/usr/bin/python3
PIDS=()
NSS=()
TMP=$(mktemp -d /tmp/pdh.XXXXXX)
cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# mkns NAME: netns with lo up; IPv6 off (no RS/MLD noise) unless V6=1
mkns() {
  ip netns add "$1"; NSS+=("$1")
  ip -n "$1" link set lo up
  if [ "${V6:-0}" = 0 ]; then
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  fi
}
# noffload NS IF: no TSO/GSO/GRO, software checksums -> MTU-sized segments, valid checksums on the wire
noffload() { ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true; }
# mkveth NS1 IF1 MAC1 NS2 IF2 MAC2
mkveth() {
  ip link add "$2" address "$3" netns "$1" type veth peer name "$5" address "$6" netns "$4"
  noffload "$1" "$2"; noffload "$4" "$5"
  ip -n "$1" link set "$2" up; ip -n "$4" link set "$5" up
}
# cap_start NS IF FILE [tcpdump args/filter...]  -> CAP_PID
cap_start() {
  local ns=$1 ifc=$2 f=$3; shift 3
  local err="$TMP/tcpdump.$RANDOM.err"; : > "$err"
  ip netns exec "$ns" tcpdump -i "$ifc" -n -U --immediate-mode -Z root -w "$f" "$@" 2>"$err" &
  CAP_PID=$!; PIDS+=("$CAP_PID")
  for _ in $(seq 50); do grep -q listening "$err" && break; sleep 0.1; done
  sleep 0.2
}
cap_stop() { sleep "${2:-0.5}"; kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# wait_listen NS PORT
wait_listen() {
  for _ in $(seq 50); do ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0; sleep 0.1; done
  echo "server on $1:$2 did not start" >&2; return 1
}
# pair ID N: namespaces pdh-ID-cli / pdh-ID-srv joined by veth pdh-ID-c / pdh-ID-s;
# client 10.77.N.1 (mac 02:77:00:NN:00:01), server 10.77.N.2 (mac 02:77:00:NN:00:02);
# static neighbour entries, so no ARP precedes the first SYN.
pair() {
  CLI=pdh-$1-cli SRV=pdh-$1-srv CIF=pdh-$1-c SIF=pdh-$1-s CIP=10.77.$2.1 SIP=10.77.$2.2
  local h; h=$(printf %02x "$2"); CMAC=02:77:00:$h:00:01 SMAC=02:77:00:$h:00:02
  mkns "$CLI"; mkns "$SRV"
  mkveth "$CLI" "$CIF" "$CMAC" "$SRV" "$SIF" "$SMAC"
  ip -n "$CLI" addr add "$CIP/24" dev "$CIF"; ip -n "$SRV" addr add "$SIP/24" dev "$SIF"
  ip -n "$CLI" neigh replace "$SIP" lladdr "$SMAC" dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace "$CIP" lladdr "$CMAC" dev "$SIF" nud permanent
}
# --- common end ---

VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) NAME=lost-nosack-stream; N=11 ;;
  ok)      NAME=lost-nosack-stream-ok; N=12 ;;
  paws)    NAME=paws-nosack-stream; N=13 ;;
  *) echo "VARIANT must be problem, ok or paws" >&2; exit 2 ;;
esac
CAPS=$(dirname "$HERE")
TOOLS=$CAPS/tools
# chain ID N: client -- router (TUN delay) -- server, static ARP, offloads off
CLI=px2-ls$N-cli RTR=px2-ls$N-rtr SRV=px2-ls$N-srv
CIP=10.202.$N.2 SIP=10.202.$((N + 128)).2 RCIP=10.202.$N.1 RSIP=10.202.$((N + 128)).1
H=$(printf %02x "$N")
CMAC=02:22:$H:00:00:02 RCMAC=02:22:$H:00:00:01 RSMAC=02:22:$H:80:00:01 SMAC=02:22:$H:80:00:02
mkns "$CLI"; mkns "$RTR"; mkns "$SRV"
mkveth "$CLI" c0 "$CMAC" "$RTR" rc "$RCMAC"
mkveth "$SRV" s0 "$SMAC" "$RTR" rs "$RSMAC"
ip -n "$CLI" addr add "$CIP/24" dev c0; ip -n "$CLI" route add default via "$RCIP"
ip -n "$SRV" addr add "$SIP/24" dev s0; ip -n "$SRV" route add default via "$RSIP"
ip -n "$RTR" addr add "$RCIP/24" dev rc; ip -n "$RTR" addr add "$RSIP/24" dev rs
ip -n "$CLI" neigh replace "$RCIP" lladdr "$RCMAC" dev c0 nud permanent
ip -n "$SRV" neigh replace "$RSIP" lladdr "$RSMAC" dev s0 nud permanent
ip -n "$RTR" neigh replace "$CIP" lladdr "$CMAC" dev rc nud permanent
ip -n "$RTR" neigh replace "$SIP" lladdr "$SMAC" dev rs nud permanent
ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
  net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_sack=0
MANGLE=
[ "$VARIANT" = paws ] && MANGLE="--ts-src $CIP --ts-shift 1073741824 --ts-from-data 10"
ip -n "$RTR" tuntap add dev tun0 mode tun
ip -n "$RTR" link set tun0 up mtu 1500 txqueuelen 10000
ip netns exec "$RTR" sysctl -qw net.ipv4.conf.tun0.rp_filter=0
# shellcheck disable=SC2086
ip netns exec "$RTR" timeout 25 $PY "$TOOLS/tun_mangle.py" --dev tun0 --delay-ms 10 --duration 20 \
  $MANGLE > "$TMP/tun.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -qs "tun_mangle:" "$TMP/tun.log" && break; sleep 0.1; done
ip -n "$RTR" route add default dev tun0 table 100
ip -n "$RTR" rule add iif rc lookup 100 pref 100
ip -n "$RTR" rule add iif rs lookup 100 pref 101
if [ "$VARIANT" = problem ]; then
  ip netns exec "$SRV" nft -f - <<'NFT'
table inet px2 {
  set dropped { typeof tcp sequence; flags dynamic; size 64; }
  chain in {
    type filter hook input priority 0; policy accept;
    tcp dport 8080 @ih,0,32 0x4c4f5354 tcp sequence @dropped accept
    tcp dport 8080 @ih,0,32 0x4c4f5354 add @dropped { tcp sequence } counter drop
  }
}
NFT
fi
OUTC=$CAPS/$NAME-client/$NAME-client.pcap
OUTS=$CAPS/$NAME-server/$NAME-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 20 ip netns exec "$SRV" $PY "$HERE/stream.py" server --addr "$SIP" --port 8080 --timeout 18 &
SPID=$!; PIDS+=($SPID)
wait_listen "$SRV" 8080
ip netns exec "$SRV" nstat -asz > "$TMP/s0"; ip netns exec "$CLI" nstat -asz > "$TMP/c0"
cap_start "$CLI" c0 "$OUTC" -s 128 tcp port 8080; CC=$CAP_PID
cap_start "$SRV" s0 "$OUTS" -s 128 tcp port 8080; CS=$CAP_PID
MARK=
[ "$VARIANT" = problem ] && MARK="--mark 10,30"
# shellcheck disable=SC2086
timeout 20 ip netns exec "$CLI" $PY "$HERE/stream.py" client --addr "$SIP" --port 8080 \
  --count 60 --size 200 --gap-ms 100 $MARK --timeout 15 || true
if [ "$VARIANT" = paws ]; then sleep 3; else wait "$SPID" || true; fi
cap_stop "$CC" 0.5; cap_stop "$CS" 0.3
ip netns exec "$SRV" nstat -asz > "$TMP/s1"; ip netns exec "$CLI" nstat -asz > "$TMP/c1"
# counters that changed (absolute values of the namespace, no nstat history touched)
ndiff() {
  awk 'NR==FNR { if ($1 !~ /^#/) b[$1]=$2; next }
       $1 !~ /^#/ && $1 ~ /Retrans|Timeout|PAWS|DupAck|Reno|Loss|OFO|InSegs|OutSegs/ && $2 != b[$1] {
         printf "  %-28s %8s -> %8s\n", $1, b[$1]+0, $2 }' "$1" "$2"
}
echo "server counters:"; ndiff "$TMP/s0" "$TMP/s1"
echo "client counters:"; ndiff "$TMP/c0" "$TMP/c1"
[ "$VARIANT" = problem ] && { echo "nft:"; ip netns exec "$SRV" nft list chain inet px2 in | grep counter; }
echo "wrote $OUTC $OUTS"
