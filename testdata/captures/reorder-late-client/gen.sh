#!/bin/bash
# pcapdoc golden captures: reorder-late-{client,router} (VARIANT=problem) and the healthy twins
# reorder-late-healthy-{client,router} (VARIANT=ok). Run as root; ~15 s; cleans up.
#
# client px2-rlN-cli 10.202.N.2 -- r1 (../tools/tun_delay.py, 20 ms each way: RTT 40 ms) --
# r2 (../tools/tun_late.py, no delay) -- server px2-rlN-srv 10.202.(N+128).2:5191.
# The server sends 786432 B in 3 bursts of 256 KiB with 1 s of silence between them
# (../tools/vbapp.py send --bursts 3 --idle 1), net.ipv4.tcp_slow_start_after_idle=0 on the
# server; TSO/GSO/GRO off; SACK and timestamps on (defaults).
#   problem: r2 holds the 40th data packet toward the client and every 150th after it 70 ms
#            longer than the others (more than the 40 ms round trip): the packets behind it
#            overtake it; the server's SACK recovery resends it before it arrives, so the
#            first copy comes after the resend, with a lower IPv4 ID.
#   ok:      the same path, nothing held.
# Captured at the same time on the client's eth0 (the receiver) and on r2's to-r1 (a router
# after the reordering point, next to the server in time), -s 128.

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
  problem) NAME=reorder-late; N=21 ;;
  ok)      NAME=reorder-late-healthy; N=22 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
CAPS=$(dirname "$HERE")
TOOLS=$CAPS/tools
P=px2-rl$N
CLI=$P-cli R1=$P-r1 R2=$P-r2 SRV=$P-srv
CIP=10.202.$N.2 SIP=10.202.$((N + 128)).2
for n in "$CLI" "$R1" "$R2" "$SRV"; do mkns "$n"; done
H=$(printf %02x "$N")
mkveth "$CLI" eth0 02:22:$H:01:00:02 "$R1" to-cli 02:22:$H:01:00:01
mkveth "$R1" to-r2 02:22:$H:03:00:01 "$R2" to-r1 02:22:$H:03:00:02
mkveth "$R2" to-srv 02:22:$H:02:00:01 "$SRV" eth0 02:22:$H:02:00:02
ip -n "$CLI" addr add "$CIP/24" dev eth0; ip -n "$CLI" route add default via 10.202.$N.1
ip -n "$R1" addr add 10.202.$N.1/24 dev to-cli; ip -n "$R1" addr add 10.202.$((N + 64)).1/24 dev to-r2
ip -n "$R2" addr add 10.202.$((N + 64)).2/24 dev to-r1; ip -n "$R2" addr add 10.202.$((N + 128)).1/24 dev to-srv
ip -n "$SRV" addr add "$SIP/24" dev eth0; ip -n "$SRV" route add default via 10.202.$((N + 128)).1
ip -n "$R1" route add 10.202.$((N + 128)).0/24 via 10.202.$((N + 64)).2
ip -n "$R2" route add 10.202.$N.0/24 via 10.202.$((N + 64)).1
ip -n "$CLI" neigh replace 10.202.$N.1 lladdr 02:22:$H:01:00:01 dev eth0 nud permanent
ip -n "$R1" neigh replace "$CIP" lladdr 02:22:$H:01:00:02 dev to-cli nud permanent
ip -n "$R1" neigh replace 10.202.$((N + 64)).2 lladdr 02:22:$H:03:00:02 dev to-r2 nud permanent
ip -n "$R2" neigh replace 10.202.$((N + 64)).1 lladdr 02:22:$H:03:00:01 dev to-r1 nud permanent
ip -n "$R2" neigh replace "$SIP" lladdr 02:22:$H:02:00:02 dev to-srv nud permanent
ip -n "$SRV" neigh replace 10.202.$((N + 128)).1 lladdr 02:22:$H:02:00:01 dev eth0 nud permanent
LATE=
[ "$VARIANT" = problem ] && LATE="--late-dst $CIP --late-ms 70 --late-first 40 --late-every 150"
for r in "$R1" "$R2"; do
  ip netns exec "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
  ip -n "$r" tuntap add dev tun0 mode tun
  ip -n "$r" link set tun0 up mtu 1500 txqueuelen 10000
  ip netns exec "$r" sysctl -qw net.ipv4.conf.tun0.rp_filter=0
done
ip netns exec "$R1" timeout 30 $PY "$TOOLS/tun_delay.py" --dev tun0 --delay-ms 20 --duration 25 > "$TMP/r1.log" 2>&1 &
PIDS+=($!)
# shellcheck disable=SC2086
ip netns exec "$R2" timeout 30 $PY "$TOOLS/tun_late.py" --dev tun0 --duration 25 $LATE > "$TMP/r2.log" 2>&1 &
R2PID=$!; PIDS+=($R2PID)
for l in r1 r2; do for _ in $(seq 50); do grep -qs "tun_delay:" "$TMP/$l.log" && break; sleep 0.1; done; done
for r in "$R1" "$R2"; do ip -n "$r" route add default dev tun0 table 100; done
ip -n "$R1" rule add iif to-cli lookup 100 pref 100; ip -n "$R1" rule add iif to-r2 lookup 100 pref 101
ip -n "$R2" rule add iif to-r1 lookup 100 pref 100; ip -n "$R2" rule add iif to-srv lookup 100 pref 101
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
OUTC=$CAPS/$NAME-client/$NAME-client.pcap
OUTR=$CAPS/$NAME-router/$NAME-router.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTR")"
ip netns exec "$SRV" nstat -asz > "$TMP/s0"
timeout 25 ip netns exec "$SRV" $PY "$TOOLS/vbapp.py" server --addr "$SIP" --port 5191 --mode send \
  --bytes 786432 --bursts 3 --idle 1 --timeout 20 &
SPID=$!; PIDS+=($SPID)
wait_listen "$SRV" 5191
cap_start "$CLI" eth0 "$OUTC" -s 128 tcp port 5191; CC=$CAP_PID
cap_start "$R2" to-r1 "$OUTR" -s 128 tcp port 5191; CR=$CAP_PID
timeout 25 ip netns exec "$CLI" $PY "$TOOLS/vbapp.py" client --addr "$SIP" --port 5191 --mode recv --timeout 20 || true
wait "$SPID" || true
cap_stop "$CC" 0.5; cap_stop "$CR" 0.3
ip netns exec "$SRV" nstat -asz > "$TMP/s1"
echo "server counters:"
awk 'NR==FNR { if ($1 !~ /^#/) b[$1]=$2; next }
     $1 !~ /^#/ && $1 ~ /Retrans|Timeout|Reorder|SACK|DSACK|Recovery|Loss|Probe|OutSegs/ && $2 != b[$1] {
       printf "  %-28s %8s -> %8s\n", $1, b[$1]+0, $2 }' "$TMP/s0" "$TMP/s1"
kill -TERM "$R2PID" 2>/dev/null || true; wait "$R2PID" 2>/dev/null || true
grep "tun_late:" "$TMP/r2.log" || true
echo "wrote $OUTC $OUTR"
