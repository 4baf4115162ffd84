#!/bin/bash
# pcapdoc golden capture: accept-queue-abort.
# Server pdh-ab-srv 10.77.6.2:80 listens with backlog 1 and never calls accept();
# net.ipv4.tcp_abort_on_overflow=1 in the server netns. One client netns pdh-ab-cli with three
# source addresses 10.77.6.1, .3, .4 on one veth; 6 connections (2 per address):
# started at t=0, 0, 0.11, 0.5, 0.6, 0.7 s; each sends a small HTTP/1.0 request as soon as
# connect() returns. The client veth egress is shaped with tbf (8 kbit/s, a slow uplink) so
# that SYNs and handshake ACKs interleave at the listener (on a bare veth each handshake
# completes before the next SYN is sent and only the SYN-drop case would show).
# Run bounded to ~12 s. Captured on the SERVER veth. Run as root.

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

ABORT=1 NAME=accept-queue-abort ID=ab NET=6
ABORT=${ABORT:-0}
NAME=${NAME:-accept-queue-full}
pair ${ID:-aq} ${NET:-5}
OUT=$HERE/$NAME.pcap
PFX=${CIP%.1}
for x in 3 4; do
  ip -n "$CLI" addr add "$PFX.$x/24" dev "$CIF"
  ip -n "$SRV" neigh replace "$PFX.$x" lladdr "$CMAC" dev "$SIF" nud permanent
done
# slow client uplink: 8 kbit/s = ~74 ms per SYN; burst/limit small (largest packet is ~101 bytes)
ip -n "$CLI" link set "$CIF" txqueuelen 100
tc -n "$CLI" qdisc add dev "$CIF" root tbf rate 8kbit burst 200 limit 3000
# burst.py --prime-udp first sends one 192-byte UDP frame (to port 9, not captured: filter "tcp")
# which empties the bucket, so the first SYNs queue in tbf ahead of the handshake ACKs.
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_abort_on_overflow=$ABORT
timeout 30 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --backlog 1 --no-accept --timeout 25 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
cap_start "$SRV" "$SIF" "$OUT" tcp
# Start offsets: conn1+conn2 at 0 (both become request socks: backlog 1 allows 2 pending
# requests before SYN cookies kick in), conn3 at 0.11 s (its SYN is queued behind conn1's
# ACK+request but ahead of conn2's ACK -> a real request sock whose ACK then meets a full
# accept queue), conns 4-6 at 0.5/0.6/0.7 s (SYN arrives while the accept queue is full).
timeout 25 ip netns exec "$CLI" $PY "$HERE/burst.py" "$SIP" 80 "$PFX.1,$PFX.3,$PFX.4" \
  --at 0,0,0.11,0.5,0.6,0.7 --wait 10 --prime-udp 150 || true
echo "server listen socket (Recv-Q = accept queue, Send-Q = backlog):"
ip netns exec "$SRV" ss -ltn "sport = :80"
ip netns exec "$SRV" nstat -a 2>/dev/null | grep -E "Listen|SynRetrans|TCPReqQ|Syncookie|TCPTimeouts|AbortOnOverflow|OutRsts|RetransSegs" || true
cap_stop "$CAP_PID" 1
echo "wrote $OUT"
