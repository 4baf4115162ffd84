#!/bin/bash
# pcapdoc validation capture: nat-ts-clocks.
# Two client hosts pdvA-nat-ha (192.168.61.11) and pdvA-nat-hb (192.168.61.12) sit on a bridge behind
# pdvA-nat-rt, which masquerades them (nft) to 10.61.8.1 towards the server pdvA-nat-srv 10.61.8.2:80.
# Timestamps on (default tcp_timestamps=1: one random TS offset per source/destination address
# pair, so each host has its own TS clock). Each host makes 4 HTTP/1.0 GETs, interleaved
# A,B,A,B,... 0.3 s apart; all succeed (kernel 6.18 has no tcp_tw_recycle).
# Captured on the SERVER veth (Ethernet).
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
SRV=pdvA-nat-srv RT=pdvA-nat-rt HA=pdvA-nat-ha HB=pdvA-nat-hb
for n in $SRV $RT $HA $HB; do mkns $n; done
mkveth $RT pdvA-nat-rs 02:61:08:00:00:01 $SRV pdvA-nat-s 02:61:08:00:00:02
ip -n $RT addr add 10.61.8.1/24 dev pdvA-nat-rs; ip -n $SRV addr add 10.61.8.2/24 dev pdvA-nat-s
ip -n $RT link add pdvA-nat-br type bridge; ip -n $RT link set pdvA-nat-br up
ip -n $RT addr add 192.168.61.1/24 dev pdvA-nat-br
i=0
for h in $HA $HB; do
  i=$((i+1))
  mkveth $h pdvA-nat-h$i 02:61:08:01:00:1$i $RT pdvA-nat-p$i 02:61:08:01:00:2$i
  ip -n $RT link set pdvA-nat-p$i master pdvA-nat-br
  ip -n $h addr add 192.168.61.1$i/24 dev pdvA-nat-h$i
  ip -n $h route add default via 192.168.61.1
done
ip netns exec $RT sysctl -qw net.ipv4.ip_forward=1
ip netns exec $RT nft -f - <<'NFT'
table ip pdvnat {
  chain post {
    type nat hook postrouting priority srcnat; policy accept;
    ip saddr 192.168.61.0/24 oifname "pdvA-nat-rs" masquerade
  }
}
NFT
OUT=$HERE/nat-ts-clocks.pcap
timeout 40 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --close-first client --timeout 35 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
cap_start "$SRV" pdvA-nat-s "$OUT" tcp
for k in 1 2 3 4; do
  for h in $HA $HB; do
    timeout 10 ip netns exec $h $PY "$HERE/../tools/client.py" get 10.61.8.2 80 --ver 1.0 --timeout 5 || true
    sleep 0.3
  done
done
cap_stop "$CAP_PID" 1
echo "wrote $OUT"
