#!/bin/bash
# aq-synretry-host-server: issue 35 (pcapdoc --host). The setup of ../aq-synretry-client/gen.sh (VARIANT=late: the path, not the listener),
# namespaces px4-*, addresses 10.204.x.x, the server vantage only, and the host snapshots of
# ../tools/host_snap.sh taken IN the server's namespace before the capture, every 0.5 s during it
# (ss) and after it, stored as host.tgz beside the capture. Run as root; cleans up.
# pcapdoc golden captures: aq-synretry-{client,server} (VARIANT=late, the default) and
# aq-synretry-full-{client,server} (VARIANT=full). Run as root; ~6 s (full ~10 s); cleans up.
#
# client 10.204.42.2 -- router (TUN forwarder, 150 ms each way) -- server 10.204.142.2:8080.
# The client connects once (source port 42001) with classic SYN backoff
# (net.ipv4.tcp_syn_linear_timeouts=0: SYNs at 0, 1, 3 s) and sends a 100-byte request as soon
# as it is connected; the server answers 200 bytes.
#   - the router drops the client's first SYN (nft, one packet's quota);
#   - tun_shape.py --freeze-on-synack: the first SYN-ACK toward the client (the answer to the
#     SYN at 1 s) and everything after it toward the client for 1.75 s are held and released
#     together: the SYN-ACK and its timer re-send reach the client just after its third SYN
#     (3 s), so the client ACKs them, and the server's answer to that third SYN (tcp_check_req
#     answers a repeated SYN at once) arrives one round trip after the SYN, 0.25 s after the ACK.
#   late: listen(128): nothing is wrong with the listener; that SYN-ACK after the ACK answers
#         the SYN (users' case (a): tls_with_huge_ch.pcapng).
#   full: listen(1) and an application that accepts nothing for 7 s; two other connections from
#         10.204.42.3 (not held by the router) fill the accept queue at 2 s; the ACK and the
#         request then meet a full queue (TcpExtListenOverflows), the request socket's timer
#         re-sends the SYN-ACK 2 s after the answer to the SYN, and the connection is created
#         by the client's ACK to that re-send once the application has accepted the other two.
# Captures at the same time on the client's veth (c0) and the server's veth (s0).

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

# chain ID N DELAY_MS DURATION_S [tun_shape.py options...]
#   px4-ID-cli c0 10.204.N.2 -- px4-ID-rtr (r-c 10.204.N.1 | r-s 10.204.N+100.1) -- px4-ID-srv
#   s0 10.204.N+100.2. In the router every packet from r-c or r-s is policy-routed into tun0,
#   where ../tools/tun_shape.py holds it DELAY_MS (and misbehaves as its options say) and writes
#   it back; the main table forwards it on. Static neighbours: no ARP in the captures.
chain() {
  local id=$1 n=$2 d=$3 dur=$4 h; shift 4
  CLI=px4-$id-cli RTR=px4-$id-rtr SRV=px4-$id-srv
  CIP=10.204.$n.2 SIP=10.204.$((n + 100)).2 CGW=10.204.$n.1 SGW=10.204.$((n + 100)).1
  h=$(printf %02x "$n")
  CMAC=02:c9:$h:00:00:02
  mkns "$CLI"; mkns "$RTR"; mkns "$SRV"
  mkveth "$CLI" c0 "$CMAC" "$RTR" r-c 02:c9:$h:00:00:01
  mkveth "$SRV" s0 02:c9:$h:01:00:02 "$RTR" r-s 02:c9:$h:01:00:01
  ip -n "$CLI" addr add "$CIP/24" dev c0; ip -n "$RTR" addr add "$CGW/24" dev r-c
  ip -n "$SRV" addr add "$SIP/24" dev s0; ip -n "$RTR" addr add "$SGW/24" dev r-s
  ip -n "$CLI" route add default via "$CGW"; ip -n "$SRV" route add default via "$SGW"
  ip -n "$CLI" neigh replace "$CGW" lladdr 02:c9:$h:00:00:01 dev c0 nud permanent
  ip -n "$SRV" neigh replace "$SGW" lladdr 02:c9:$h:01:00:01 dev s0 nud permanent
  ip -n "$RTR" neigh replace "$CIP" lladdr "$CMAC" dev r-c nud permanent
  ip -n "$RTR" neigh replace "$SIP" lladdr 02:c9:$h:01:00:02 dev r-s nud permanent
  ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
  ip -n "$RTR" tuntap add dev tun0 mode tun
  ip -n "$RTR" link set tun0 up mtu 1500 txqueuelen 10000
  ip netns exec "$RTR" sysctl -qw net.ipv4.conf.tun0.rp_filter=0
  ip netns exec "$RTR" timeout $((dur + 5)) $PY "$HERE/../tools/tun_shape.py" --dev tun0 --delay-ms "$d" \
    --duration "$dur" "$@" > "$TMP/tun.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 50); do grep -q "tun_delay:" "$TMP/tun.log" 2>/dev/null && break; sleep 0.1; done
  ip -n "$RTR" route add default dev tun0 table 100
  ip -n "$RTR" rule add iif r-c lookup 100 pref 100
  ip -n "$RTR" rule add iif r-s lookup 100 pref 100
}
# nst NS: the non-zero counters these captures are about (absolute; the namespace is new)
nst() {
  ip netns exec "$1" nstat -az 2>/dev/null |
    grep -E "ListenOverflows|ListenDrops|SynRetrans|Syncookies|ReqQFull|DeferAccept|TCPTimeouts|RetransSegs|DSACK" |
    awk '$2 != 0 {print "  " $1, $2}'
}
APP=$HERE/../tools/aqapp.py

VARIANT=${VARIANT:-late}
case $VARIANT in
  late) SUF=; BACKLOG=128; ACCEPT_DELAY=0; CONNS=1; DUR=8 ;;
  full) SUF=-full; BACKLOG=1; ACCEPT_DELAY=7; CONNS=3; DUR=14 ;;
  *) echo "VARIANT must be late or full" >&2; exit 2 ;;
esac
chain sr 42 150 $DUR --freeze-dst 10.204.42.2 --freeze-ms 1750 --freeze-on-synack
OUTC=$TMP/client.pcap  # the client vantage is not kept here
OUTS=$HERE/aq-synretry-host-server.pcap
SNAP=$TMP/snap; mkdir -p "$SNAP"
HS="$HERE/../tools/host_snap.sh"
mkdir -p "$(dirname "$OUTS")"
ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_syn_linear_timeouts=0
ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=1 net.ipv4.tcp_abort_on_overflow=0
if [ "$VARIANT" = full ]; then
  ip -n "$CLI" addr add 10.204.42.3/24 dev c0
  ip -n "$RTR" neigh replace 10.204.42.3 lladdr "$CMAC" dev r-c nud permanent
fi
# the first SYN of port 42001 only: a quota of one SYN's bytes (60)
ip netns exec "$RTR" nft -f - <<NFT
table inet px1 {
  chain fw {
    type filter hook forward priority 0;
    iifname "r-c" tcp sport 42001 tcp flags & (syn | ack) == syn quota until 60 bytes counter drop
  }
}
NFT
timeout $((DUR + 2)) ip netns exec "$SRV" $PY "$APP" server --addr "$SIP" --port 8080 --backlog $BACKLOG \
  --conns $CONNS --accept-delay $ACCEPT_DELAY --timeout $DUR > "$TMP/srv.log" &
PIDS+=($!)
wait_listen "$SRV" 8080
cap_start "$CLI" c0 "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" s0 "$OUTS" tcp; CS=$CAP_PID
bash "$HS" "$SRV" "$SNAP" before
( for k in $(seq -w 0 19); do sleep 0.5; bash "$HS" "$SRV" "$SNAP" during$k ss; done ) &
PIDS+=($!)
timeout $DUR ip netns exec "$CLI" $PY "$APP" client --addr "$SIP" --port 8080 --conn 42001@0 \
  --reply-timeout 10 --timeout $((DUR - 1)) > "$TMP/cli.log" &
MAIN=$!; PIDS+=($MAIN)
if [ "$VARIANT" = full ]; then
  sleep 2
  timeout 12 ip netns exec "$CLI" $PY "$APP" client --addr "$SIP" --port 8080 --src 10.204.42.3 \
    --conn 42011@0 --conn 42012@5 --reply-timeout 10 --timeout 11 > "$TMP/fill.log" || true
fi
wait $MAIN || true
sleep 0.5
cap_stop "$CC" 0; cap_stop "$CS" 0.2
bash "$HS" "$SRV" "$SNAP" after
kill "${PIDS[-1]}" 2>/dev/null || true; wait "${PIDS[-1]}" 2>/dev/null || true
rm -f "$SNAP"/ss.during*.tmp; tar -czf "$HERE/host.tgz" -C "$SNAP" .
cat "$TMP/cli.log" "$TMP/srv.log"; [ -f "$TMP/fill.log" ] && cat "$TMP/fill.log"
ip netns exec "$RTR" nft list ruleset | grep counter
grep -v "^tun_delay" "$TMP/tun.log"
echo "server counters:"; nst "$SRV"
echo "client counters:"; nst "$CLI"
echo "wrote $OUTS $HERE/host.tgz"
