#!/bin/bash
# pdr_lib.sh: shared setup for the reset / middlebox / PAWS / accept-queue captures
# (namespaces pdr-*, addresses 10.90.0.0/16). Source it from a gen.sh; run as root.
#
#   pdr_chain ID N DELAY_MS DURATION_S   client -- router -- server
#     namespaces pdr-ID-cli, pdr-ID-rtr, pdr-ID-srv
#     client  c0 10.90.N.2/24       gw 10.90.N.1        mac 02:90:NN:00:00:02
#     router  rc 10.90.N.1/24                           mac 02:90:NN:00:00:01
#             rs 10.90.(N+128).1/24                     mac 02:90:NN:80:00:01
#     server  s0 10.90.(N+128).2/24 gw 10.90.(N+128).1  mac 02:90:NN:80:00:02
#   Static neighbour entries (no ARP in the captures), IPv6 off, offloads off (segments are
#   MTU-sized and checksums valid on the wire), rp_filter off in the router.
#   DELAY_MS > 0: everything arriving on rc or rs is policy-routed (table 100) into a TUN
#   device, tools/tun_mangle.py holds it DELAY_MS (and applies $MANGLE_ARGS) and writes it
#   back, whence the main table forwards it: one-way delay DELAY_MS, TTL decremented twice.
#   DELAY_MS = 0: plain forwarding, TTL decremented once.
#   Sets CLI RTR SRV CIP SIP CIF SIF RCIF RSIF.
#   cap_start NS IF FILE [tcpdump filter...] -> CAP_PID ; cap_stop PID [SLEEP]
#   wait_listen NS PORT ; nst_save NS FILE ; nst_diff BEFORE AFTER [REGEX]
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
PIDS=()
NSS=()
TMP=$(mktemp -d /tmp/pdr.XXXXXX)
pdr_cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$TMP"
}
trap pdr_cleanup EXIT

mkns() {
  case $1 in pdr-*) ;; *) echo "namespace must start with pdr-" >&2; return 1;; esac
  ip netns add "$1"; NSS+=("$1")
  ip -n "$1" link set lo up
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
}
noffload() { ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true; }
# mkveth NS1 IF1 MAC1 NS2 IF2 MAC2
mkveth() {
  ip link add "$2" address "$3" netns "$1" type veth peer name "$5" address "$6" netns "$4"
  noffload "$1" "$2"; noffload "$4" "$5"
  ip -n "$1" link set "$2" up; ip -n "$4" link set "$5" up
}

pdr_chain() {
  local id=$1 n=$2 delay=$3 dur=$4
  [ "$n" -ge 1 ] && [ "$n" -le 127 ] || { echo "N must be 1..127" >&2; return 1; }
  CLI=pdr-$id-cli RTR=pdr-$id-rtr SRV=pdr-$id-srv
  CIF=c0 SIF=s0 RCIF=rc RSIF=rs
  local h; h=$(printf %02x "$n")
  local cmac=02:90:$h:00:00:02 rcmac=02:90:$h:00:00:01 rsmac=02:90:$h:80:00:01 smac=02:90:$h:80:00:02
  CIP=10.90.$n.2 SIP=10.90.$((n + 128)).2
  local rcip=10.90.$n.1 rsip=10.90.$((n + 128)).1
  mkns "$CLI"; mkns "$RTR"; mkns "$SRV"
  mkveth "$CLI" "$CIF" "$cmac" "$RTR" "$RCIF" "$rcmac"
  mkveth "$SRV" "$SIF" "$smac" "$RTR" "$RSIF" "$rsmac"
  ip -n "$CLI" addr add "$CIP/24" dev "$CIF"; ip -n "$CLI" route add default via "$rcip"
  ip -n "$SRV" addr add "$SIP/24" dev "$SIF"; ip -n "$SRV" route add default via "$rsip"
  ip -n "$RTR" addr add "$rcip/24" dev "$RCIF"; ip -n "$RTR" addr add "$rsip/24" dev "$RSIF"
  ip -n "$CLI" neigh replace "$rcip" lladdr "$rcmac" dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace "$rsip" lladdr "$rsmac" dev "$SIF" nud permanent
  ip -n "$RTR" neigh replace "$CIP" lladdr "$cmac" dev "$RCIF" nud permanent
  ip -n "$RTR" neigh replace "$SIP" lladdr "$smac" dev "$RSIF" nud permanent
  ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
  if [ "$delay" != 0 ]; then
    ip -n "$RTR" tuntap add dev tun0 mode tun
    ip -n "$RTR" link set tun0 up mtu 1500 txqueuelen 10000
    ip netns exec "$RTR" sysctl -qw net.ipv4.conf.tun0.rp_filter=0
    # shellcheck disable=SC2086
    ip netns exec "$RTR" timeout $((dur + 5)) $PY "$TOOLS/tun_mangle.py" --dev tun0 \
      --delay-ms "$delay" --duration "$dur" ${MANGLE_ARGS:-} > "$TMP/tun_mangle.log" 2>&1 &
    MANGLE_PID=$!; PIDS+=("$MANGLE_PID")
    for _ in $(seq 50); do grep -qs "tun_mangle:" "$TMP/tun_mangle.log" && break; sleep 0.1; done
    ip -n "$RTR" route add default dev tun0 table 100
    ip -n "$RTR" rule add iif "$RCIF" lookup 100 pref 100
    ip -n "$RTR" rule add iif "$RSIF" lookup 100 pref 101
  fi
}

# pdr_mangle_report: stop the TUN forwarder and print its counts
pdr_mangle_report() {
  [ -n "${MANGLE_PID:-}" ] || return 0
  kill -TERM "$MANGLE_PID" 2>/dev/null || true; wait "$MANGLE_PID" 2>/dev/null || true
  tail -1 "$TMP/tun_mangle.log"; MANGLE_PID=
}

# cap_start NS IF FILE [tcpdump filter...]  -> CAP_PID
cap_start() {
  local ns=$1 ifc=$2 f=$3; shift 3
  local err="$TMP/tcpdump.$RANDOM.err"; : > "$err"
  ip netns exec "$ns" tcpdump -i "$ifc" -n -U --immediate-mode -Z root -w "$f" "$@" 2>"$err" &
  CAP_PID=$!; PIDS+=("$CAP_PID")
  for _ in $(seq 50); do grep -q listening "$err" && break; sleep 0.1; done
  sleep 0.2
}
cap_stop() { sleep "${2:-0.5}"; kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
wait_listen() {
  for _ in $(seq 50); do ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0; sleep 0.1; done
  echo "server on $1:$2 did not start" >&2; return 1
}
# nst_save NS FILE: absolute kernel counters of that namespace (history untouched)
nst_save() { ip netns exec "$1" nstat -asz > "$2"; }
# nst_diff BEFORE AFTER [REGEX]: counters that changed (name before after delta)
nst_diff() {
  awk -v re="${3:-.}" 'NR==FNR { if ($1 !~ /^#/) b[$1]=$2; next }
       $1 !~ /^#/ && $1 ~ re && $2 != b[$1] { printf "  %-28s %8s -> %8s  (+%d)\n", $1, b[$1]+0, $2, $2-b[$1] }' "$1" "$2"
}
