#!/bin/bash
# pcapdoc golden capture: syncookies.
# Client pdh-sc-cli 10.77.7.1 -> server pdh-sc-srv 10.77.7.2:80, three HTTP/1.1 GETs, each on
# its own connection with a clean close, 0.5 s apart:
#   A: server net.ipv4.tcp_syncookies=1 (default; no SYN flood -> normal SYN-ACK), client timestamps on
#   B: server tcp_syncookies=2 (always send cookies), client net.ipv4.tcp_timestamps=0
#      -> the cookie SYN-ACK carries only MSS (no WS, no SACK_PERM: they can only be encoded in TSval)
#   C: server tcp_syncookies=2, client timestamps on -> cookie SYN-ACK with TS (WS/SACK encoded in it)
# Captured on the client veth. Run as root.

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

pair sc 7
OUT=$HERE/syncookies.pcap
timeout 60 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --timeout 55 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
cap_start "$CLI" "$CIF" "$OUT" tcp
G="timeout 20 ip netns exec $CLI $PY $HERE/../tools/client.py get $SIP 80 --ver 1.1 --n 1"
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=1; $G; sleep 0.5                     # A
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=2
ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_timestamps=0; $G; sleep 0.5                     # B
ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_timestamps=1; $G                                # C
cap_stop "$CAP_PID" 1
ip netns exec "$SRV" nstat -az TcpExtSyncookiesSent TcpExtSyncookiesRecv TcpExtSyncookiesFailed
echo "wrote $OUT"
