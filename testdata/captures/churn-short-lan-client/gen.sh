#!/bin/bash
# pcapdoc golden capture: churn-short-lan-client (and -server; churn-short-rtt40-* with
# DELAY=20 N=300 RATE=50). Many short one-request connections: on a LAN (DELAY=0) they cost
# nothing measurable (no port reused, no SYN failed, the handshake a sliver of a millisecond);
# over a 40 ms RTT each handshake is half of its exchange. Namespaces px5-ch-*/px5-chd-*,
# addresses 10.205.8-10.0/24. Run as root. See README.md.
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

# DELAY=0: client px5-ch-cli 10.205.8.1 and server px5-ch-srv 10.205.8.2 on one veth (a LAN);
# DELAY=20: client 10.205.9.1 -- router px5-chd-rtr (TUN delay, tools/tun_delay.py, 20 ms each
# way: 40 ms RTT) -- server 10.205.10.2. The server (tools/httpd.py --close-first client)
# answers "GET / HTTP/1.0" with a 13-byte body; the client closes first and holds TIME_WAIT, so
# no port comes back within 60 s. TCP timestamps off in both (12 bytes less per frame: the
# capture stays small). Client: shortconns.py, N connections at RATE/s.
DELAY=${DELAY:-0}
N=${N:-1000}
RATE=${RATE:-200}
TAG=$([ "$DELAY" = 0 ] && echo lan || echo rtt40)
if [ "$DELAY" = 0 ]; then
  CLI=px5-ch-cli SRV=px5-ch-srv CIF=px5-ch-c SIF=px5-ch-s SIP=10.205.8.2
  mkns "$CLI"; mkns "$SRV"
  mkveth "$CLI" "$CIF" 02:25:08:00:00:01 "$SRV" "$SIF" 02:25:08:00:00:02
  ip -n "$CLI" addr add 10.205.8.1/24 dev "$CIF"; ip -n "$SRV" addr add 10.205.8.2/24 dev "$SIF"
  ip -n "$CLI" neigh replace 10.205.8.2 lladdr 02:25:08:00:00:02 dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace 10.205.8.1 lladdr 02:25:08:00:00:01 dev "$SIF" nud permanent
else
  CLI=px5-chd-cli SRV=px5-chd-srv RTR=px5-chd-rtr CIF=px5-chd-c SIF=px5-chd-s SIP=10.205.10.2
  mkns "$CLI"; mkns "$SRV"; mkns "$RTR"
  mkveth "$CLI" "$CIF" 02:25:09:00:00:01 "$RTR" px5-chd-rc 02:25:09:00:00:fe
  mkveth "$RTR" px5-chd-rs 02:25:0a:00:00:fe "$SRV" "$SIF" 02:25:0a:00:00:02
  ip -n "$CLI" addr add 10.205.9.1/24 dev "$CIF"; ip -n "$SRV" addr add 10.205.10.2/24 dev "$SIF"
  ip -n "$RTR" addr add 10.205.9.254/24 dev px5-chd-rc; ip -n "$RTR" addr add 10.205.10.254/24 dev px5-chd-rs
  ip -n "$CLI" route add default via 10.205.9.254; ip -n "$SRV" route add default via 10.205.10.254
  ip -n "$CLI" neigh replace 10.205.9.254 lladdr 02:25:09:00:00:fe dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace 10.205.10.254 lladdr 02:25:0a:00:00:fe dev "$SIF" nud permanent
  ip -n "$RTR" neigh replace 10.205.9.1 lladdr 02:25:09:00:00:01 dev px5-chd-rc nud permanent
  ip -n "$RTR" neigh replace 10.205.10.2 lladdr 02:25:0a:00:00:02 dev px5-chd-rs nud permanent
  ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
  ip -n "$RTR" tuntap add dev tun0 mode tun
  ip -n "$RTR" link set tun0 up mtu 1500 txqueuelen 10000
  ip netns exec "$RTR" sysctl -qw net.ipv4.conf.tun0.rp_filter=0
  timeout 60 ip netns exec "$RTR" $PY "$HERE/../tools/tun_delay.py" --dev tun0 --delay-ms "$DELAY" \
    --duration 55 > "$TMP/tun.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do grep -q "tun_delay:" "$TMP/tun.log" && break; sleep 0.1; done
  ip -n "$RTR" route add default dev tun0 table 100
  ip -n "$RTR" rule add iif px5-chd-rc lookup 100 pref 100
  ip -n "$RTR" rule add iif px5-chd-rs lookup 100 pref 100
fi
for n in "$CLI" "$SRV"; do ip netns exec "$n" sysctl -qw net.ipv4.tcp_timestamps=0; done
timeout 60 ip netns exec "$SRV" $PY "$HERE/../tools/httpd.py" --port 80 --backlog 256 --close-first client \
  --timeout 55 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
OUTC=$HERE/../churn-short-$TAG-client/churn-short-$TAG-client.pcap
OUTS=$HERE/../churn-short-$TAG-server/churn-short-$TAG-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
cap_start "$CLI" "$CIF" "$OUTC" -s 74 tcp
CAPC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" -s 74 tcp
CAPS=$CAP_PID
timeout 50 ip netns exec "$CLI" $PY "$HERE/shortconns.py" "$SIP" 80 "$N" "$RATE" || true
echo "client TIME_WAIT: $(ip netns exec "$CLI" ss -Htan state time-wait | wc -l), server TIME_WAIT: $(ip netns exec "$SRV" ss -Htan state time-wait | wc -l)"
cap_stop "$CAPC" 1; cap_stop "$CAPS" 0
gzip -9 -f -n "$OUTC" "$OUTS"
echo "wrote $OUTC.gz $OUTS.gz"
