#!/bin/bash
# pcapdoc golden capture: timewait-paws.
# Client pdh-tw-cli 10.77.8.1 (fixed source port 40000) -> server pdh-tw-srv 10.77.8.2:80.
# Connection 1: kernel client, HTTP/1.0 GET; the server sends the reply and closes first,
# so the SERVER holds TIME_WAIT for 10.77.8.1:40000 <-> 10.77.8.2:80.
# ~1.5 s later scapy (client netns) sends a SYN from port 40000 with an OLDER TSval
# (last client TSval - 100000) and a random ISN: the server answers from TIME_WAIT with a bare
# ACK (PAWS reject), the client kernel (no socket) answers that ACK with RST, which, with
# tcp_rfc1337=0 (default), kills the server's TIME_WAIT.  Then the real kernel client connects
# again from port 40000 (HTTP/1.0 GET) and succeeds.
# Timestamps on (default). Captured on the client veth. Run as root.

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

MODE=${MODE:-paws}
NAME=${NAME:-timewait-paws}
pair ${ID:-tw} ${NET:-8}
OUT=$HERE/$NAME.pcap
timeout 60 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --close-first server --timeout 55 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
if [ "$MODE" = ok ]; then
  # scapy owns the reused 4-tuple: keep the client kernel (which has no socket for it)
  # from answering the server's SYN-ACK / data with RST.
  ip netns exec "$CLI" nft -f - <<'NFT'
table inet pdh {
  chain out {
    type filter hook output priority 0; policy accept;
    tcp sport 40000 tcp flags rst counter drop
  }
}
NFT
fi
cap_start "$CLI" "$CIF" "$OUT" tcp
timeout 40 ip netns exec "$CLI" $PY "$HERE/../tools/twprobe.py" "$MODE" "$CIF" "$CIP" "$SIP" 40000 80 "$HERE/../tools/client.py" | tee "$TMP/facts"
echo "server TIME_WAIT sockets after the probe:"
ip netns exec "$SRV" ss -Htan state time-wait
if [ "$MODE" = paws ]; then
  sleep 0.5
  timeout 20 ip netns exec "$CLI" $PY "$HERE/../tools/client.py" get "$SIP" 80 --ver 1.0 --sport 40000 --wait-eof
fi
cap_stop "$CAP_PID" 1
[ "$MODE" = ok ] && ip netns exec "$CLI" nft list table inet pdh | grep counter
echo "wrote $OUT"
