#!/bin/bash
# pcapdoc validation capture: syn-giveup-classic.
# Client netns: tcp_syn_linear_timeouts=0 (classic 1,2,4,8 s doubling), tcp_syn_retries=3.
# Server netns drops (nft input) every IPv4 SYN to port 80 and the first 2 IPv6 SYNs.
# Captured with tcpdump -i any in the SERVER netns (LINUX_SLL2).
# --- common begin (pcapdoc validation captures, namespaces pdvA-*) ---
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
PY=/usr/bin/python3
PIDS=()
NSS=()
TMP=$(mktemp -d /tmp/pdv.XXXXXX)
cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# mkns NAME: netns with lo up; IPv6 off (no RS/MLD noise) unless V6=1 (then no DAD, no RS)
mkns() {
  ip netns add "$1"; NSS+=("$1")
  ip -n "$1" link set lo up
  if [ "${V6:-0}" = 0 ]; then
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  else
    ip netns exec "$1" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0 \
      net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.addr_gen_mode=1 2>/dev/null || true
  fi
}
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
  timeout 120 ip netns exec "$ns" tcpdump -i "$ifc" -n -U --immediate-mode -Z root -w "$f" "$@" 2>"$err" &
  CAP_PID=$!; PIDS+=("$CAP_PID")
  for _ in $(seq 50); do grep -q listening "$err" && break; sleep 0.1; done
  sleep 0.2
}
cap_stop() { sleep "${2:-0.5}"; kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
wait_listen() {
  for _ in $(seq 50); do ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0; sleep 0.1; done
  echo "server on $1:$2 did not start" >&2; return 1
}
# pair ID N: pdvA-ID-cli / pdvA-ID-srv, veth pdvA-ID-c / pdvA-ID-s; client 10.61.N.1 / fd61:N::1,
# server 10.61.N.2 / fd61:N::2 (v6 only with V6=1); static neighbours (no ARP/ND before the SYN).
pair() {
  CLI=pdvA-$1-cli SRV=pdvA-$1-srv CIF=pdvA-$1-c SIF=pdvA-$1-s CIP=10.61.$2.1 SIP=10.61.$2.2
  CIP6=fd61:$2::1 SIP6=fd61:$2::2
  local h; h=$(printf %02x "$2"); CMAC=02:61:00:$h:00:01 SMAC=02:61:00:$h:00:02
  mkns "$CLI"; mkns "$SRV"
  mkveth "$CLI" "$CIF" "$CMAC" "$SRV" "$SIF" "$SMAC"
  ip -n "$CLI" addr add "$CIP/24" dev "$CIF"; ip -n "$SRV" addr add "$SIP/24" dev "$SIF"
  ip -n "$CLI" neigh replace "$SIP" lladdr "$SMAC" dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace "$CIP" lladdr "$CMAC" dev "$SIF" nud permanent
  if [ "${V6:-0}" = 1 ]; then
    ip -n "$CLI" addr add "$CIP6/64" dev "$CIF" nodad; ip -n "$SRV" addr add "$SIP6/64" dev "$SIF" nodad
    ip -n "$CLI" neigh replace "$SIP6" lladdr "$SMAC" dev "$CIF" nud permanent
    ip -n "$SRV" neigh replace "$CIP6" lladdr "$CMAC" dev "$SIF" nud permanent
  fi
}
# --- common end ---
V6=1
pair giv 1
OUT=$HERE/syn-giveup-classic.pcap
ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_syn_linear_timeouts=0 net.ipv4.tcp_syn_retries=3
ip netns exec "$SRV" nft -f - <<'NFT'
table inet pdv {
  chain in {
    type filter hook input priority 0; policy accept;
    meta nfproto ipv4 tcp dport 80 tcp flags & (syn|ack) == syn counter drop
    meta nfproto ipv6 tcp dport 80 tcp flags & (syn|ack) == syn quota until 190 bytes counter drop
  }
}
NFT
timeout 40 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --host :: --port 80 --close-first client --timeout 35 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
cap_start "$SRV" any "$OUT" -s 262144 tcp
T0=$(date +%s.%N)
timeout 25 ip netns exec "$CLI" $PY "$HERE/../tools/client.py" connect "$SIP" 80 --timeout 30 || true
echo "v4 connect ended after $(echo "$(date +%s.%N) - $T0" | bc) s"
timeout 25 ip netns exec "$CLI" $PY "$HERE/../tools/client.py" get "$SIP6" 80 --ver 1.1 --n 1 --timeout 20 || true
ip netns exec "$SRV" nft list table inet pdv | grep counter
cap_stop "$CAP_PID" 1
echo "wrote $OUT"
