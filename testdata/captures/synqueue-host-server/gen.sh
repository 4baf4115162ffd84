#!/bin/bash
# synqueue-host-server and ../synqueue-host-client: issue 35 (pcapdoc --host). The setup of
# ../synqueue-full-server/gen.sh (VARIANT=problem: SYN flood, tcp_syncookies=0), namespaces
# px4-*, addresses 10.204.x.x (spoofed sources 10.204.128.0/17), no router capture, and the
# host snapshots of ../tools/host_snap.sh taken IN the server's namespace before the clients
# start, every 0.5 s (ss), and after them; host.tgz beside both captures. Run as root; cleans up.
# pcapdoc golden capture: synqueue-full-server (and -router, -client; the synqueue-cookies-* and
# synqueue-ok-* twins with VARIANT=cookies / ok). A SYN flood fills a listener's SYN queue with
# tcp_syncookies=0: the first SYNs get SYN-ACKs (and their retransmissions), later ones, the
# real clients' included, get nothing until the requests expire. Namespaces px4-sq-*,
# addresses 10.204.4-6.0/24 and spoofed sources 10.204.128.0/17. Run as root. See README.md.
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

# VARIANT=problem: tcp_syncookies=0 on the server; VARIANT=cookies: tcp_syncookies=1 (the
# default); VARIANT=ok: no flood. Server 10.204.5.2:80: listen() backlog 64,
# tcp_max_syn_backlog 128, tcp_synack_retries 2 (a request lives ~7 s). Flooder px4-sq-fl
# (10.204.6.1) sends 600 SYNs from 600 spoofed sources in 10.204.128.0/17 from t=1 s to 3 s;
# the router sends the SYN-ACKs back toward it and it drops them (no RST, no ICMP). Real clients
# (px4-sq-cli, 10.204.4.1-3) connect at t=0.2 s (before the flood) and from t=1.8 s (during it).
VARIANT=${VARIANT:-problem}
TAG=$(case $VARIANT in problem) echo full;; cookies) echo cookies;; *) echo ok;; esac)
CLI=px4-sq-cli SRV=px4-sq-srv RTR=px4-sq-rtr FL=px4-sq-fl
mkns "$CLI"; mkns "$SRV"; mkns "$RTR"; mkns "$FL"
mkveth "$CLI" px4-sq-c 02:25:04:00:00:01 "$RTR" px4-sq-rc 02:25:04:00:00:fe
mkveth "$RTR" px4-sq-rs 02:25:05:00:00:fe "$SRV" px4-sq-s 02:25:05:00:00:02
mkveth "$RTR" px4-sq-rf 02:25:06:00:00:fe "$FL" px4-sq-f 02:25:06:00:00:01
ip -n "$RTR" addr add 10.204.4.254/24 dev px4-sq-rc
ip -n "$RTR" addr add 10.204.5.254/24 dev px4-sq-rs
ip -n "$RTR" addr add 10.204.6.254/24 dev px4-sq-rf
ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
ip -n "$RTR" route add 10.204.128.0/17 via 10.204.6.1
ip -n "$RTR" neigh replace 10.204.6.1 lladdr 02:25:06:00:00:01 dev px4-sq-rf nud permanent
ip -n "$RTR" neigh replace 10.204.5.2 lladdr 02:25:05:00:00:02 dev px4-sq-rs nud permanent
ip -n "$SRV" addr add 10.204.5.2/24 dev px4-sq-s
ip -n "$SRV" route add default via 10.204.5.254
ip -n "$SRV" neigh replace 10.204.5.254 lladdr 02:25:05:00:00:fe dev px4-sq-s nud permanent
ip -n "$FL" addr add 10.204.6.1/24 dev px4-sq-f
ip -n "$FL" route add default via 10.204.6.254
ip -n "$FL" neigh replace 10.204.6.254 lladdr 02:25:06:00:00:fe dev px4-sq-f nud permanent
ip netns exec "$FL" sysctl -qw net.ipv4.ip_forward=0
for x in 1 2 3; do
  ip -n "$CLI" addr add "10.204.4.$x/24" dev px4-sq-c
  ip -n "$RTR" neigh replace "10.204.4.$x" lladdr 02:25:04:00:00:01 dev px4-sq-rc nud permanent
done
ip -n "$CLI" route add 10.204.5.0/24 via 10.204.4.254
ip -n "$CLI" neigh replace 10.204.4.254 lladdr 02:25:04:00:00:fe dev px4-sq-c nud permanent
COOK=$([ "$VARIANT" = problem ] && echo 0 || echo 1)
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=$COOK net.ipv4.tcp_max_syn_backlog=128 \
  net.ipv4.tcp_synack_retries=2
timeout 40 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --backlog 64 --close-first client \
  --timeout 35 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
OUTS=$HERE/../synqueue-host-server/synqueue-host-server.pcap
OUTR=$TMP/router.pcap  # not kept
OUTC=$HERE/../synqueue-host-client/synqueue-host-client.pcap
mkdir -p "$(dirname "$OUTS")" "$(dirname "$OUTC")"
[ "$VARIANT" = cookies ] || mkdir -p "$(dirname "$OUTR")"
cap_start "$SRV" px4-sq-s "$OUTS" -s 96 tcp
CAPS=$CAP_PID
# the router (-i any: every forwarded packet twice) for the full and ok runs only: with cookies
# each of the 600 SYNs is answered and the file would be too large
CAPR=
if [ "$VARIANT" != cookies ]; then
  cap_start "$RTR" any "$OUTR" -s 96 tcp
  CAPR=$CAP_PID
fi
cap_start "$CLI" px4-sq-c "$OUTC" -s 96 tcp
CAPC=$CAP_PID
SNAP=$TMP/snap; mkdir -p "$SNAP"; HS="$HERE/../tools/host_snap.sh"
bash "$HS" "$SRV" "$SNAP" before
( for k in $(seq -w 0 15); do sleep 0.5; bash "$HS" "$SRV" "$SNAP" during$k ss; done ) &
SNAPPID=$!; PIDS+=($SNAPPID)
# Real clients: .1 at 0.2 s (before the flood); during it .1 .2 .3 at 1.8-2.0 s (the
# application gives up connect() after 5 s: SYNs at 0, 1, 2, 3, 4 s) and .1 .2 .3 at 2.1-2.3 s
# (the kernel's default: they retry until the queue has room again).
T0=$(date +%s.%N); T0=$(echo "$T0 + 2" | bc)   # the clients' t=0 (the flood needs ~1 s to build its packets)
timeout 30 ip netns exec "$CLI" $PY "$HERE/../synqueue-full-server/clients.py" 10.204.5.2 80 --t0 "$T0" --at \
  10.204.4.1:0.2,10.204.4.1:1.8:5,10.204.4.2:1.9:5,10.204.4.3:2.0:5,10.204.4.1:2.1,10.204.4.2:2.2,10.204.4.3:2.3 &
CL=$!; PIDS+=($CL)
if [ "$VARIANT" != ok ]; then
  timeout 15 ip netns exec "$FL" $PY "$HERE/../synqueue-full-server/flood.py" 10.204.5.2 80 --count 600 --rate 300 \
    --start "$(echo "$T0 + 1" | bc)" || true
fi
wait $CL || true
wait $SNAPPID 2>/dev/null || true
bash "$HS" "$SRV" "$SNAP" after
tar -czf "$HERE/../synqueue-host-server/host.tgz" -C "$SNAP" .
cp "$HERE/../synqueue-host-server/host.tgz" "$HERE/../synqueue-host-client/host.tgz"
echo "server SYN queue counters:"
ip netns exec "$SRV" nstat -a 2>/dev/null | grep -E "ListenDrops|ListenOverflows|TCPReqQFull|Syncookies|SynRetrans" || true
cap_stop "$CAPS" 1; [ -z "$CAPR" ] || cap_stop "$CAPR" 0; cap_stop "$CAPC" 0
echo "wrote $OUTS ${CAPR:+$OUTR }$OUTC"
