#!/bin/bash
# pcapdoc golden capture: churn-ports.
# Client pdh-ch-cli 10.77.11.1 -> server pdh-ch-srv 10.77.11.2:80.
# Client netns: net.ipv4.ip_local_port_range="40000 40049" (50 ports), net.ipv4.tcp_tw_reuse=1.
# The client makes N (default 200; 300 gives ~290 KB) sequential HTTP/1.0 connections, one GET each; the server
# waits for the client's FIN, so the CLIENT closes first and holds TIME_WAIT; when all 50 ports
# are in TIME_WAIT connect() fails with EADDRNOTAVAIL and the client retries every 20 ms
# (bounded: N connections or 60 s). tw_reuse lets a port in TIME_WAIT be reused once it is
# more than ~1 s old, so the same 4-tuples recur within seconds.
# Captured on the client veth with snaplen 128. Run as root.

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

N=${N:-200}
pair ch 11
OUT=$HERE/churn-ports.pcap
ip netns exec "$CLI" sysctl -qw net.ipv4.ip_local_port_range="40000 40049" net.ipv4.tcp_tw_reuse=1
timeout 90 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --close-first client --timeout 85 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
cap_start "$CLI" "$CIF" "$OUT" -s 128 tcp
timeout 70 ip netns exec "$CLI" $PY "$HERE/../tools/client.py" churn "$SIP" 80 --n "$N" --deadline 60 || true
echo "client TIME_WAIT sockets at the end: $(ip netns exec "$CLI" ss -Htan state time-wait | wc -l)"
cap_stop "$CAP_PID" 1
echo "wrote $OUT"
