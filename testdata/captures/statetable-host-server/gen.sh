#!/bin/bash
# statetable-host-server: issue 35 (pcapdoc --host). The setup of ../statetable-full-client/gen.sh
# with VARIANT=problem SITE=server (nf_conntrack_max=64 on the server: machine-wide, set for
# this run only and restored in the EXIT trap), namespaces px4-*, addresses 10.204.3.x, and the
# host snapshots of ../tools/host_snap.sh taken IN the server's namespace once the table is
# full, every 0.5 s (ss), and after the clients (before the limit is restored), stored as
# host.tgz beside the capture. Run as root; cleans up.
VARIANT=problem SITE=server
# pcapdoc golden capture: statetable-full-client (and -router; statetable-full-server and the
# statetable-ok-* twins with SITE= / VARIANT=). A state table full: nf_conntrack_max=64 on a
# router (SITE=router) or on the server itself (SITE=server) holding 64 long-lived connections;
# every new connection from the three client addresses then fails while the 64 keep exchanging
# data. Namespaces px4-st-*/px4-sts-*, addresses 10.204.1-3.0/24. Run as root. See README.md.
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

# VARIANT=problem: nf_conntrack_max=64 (machine-wide, for the client's run only, restored under
# the trap); VARIANT=ok: the table left as it is (262144 here). SITE=router: conntrack on a router
# between the clients and the server, captured at the client and on the router (-i any);
# SITE=server: conntrack on the server itself, captured at the server.
VARIANT=${VARIANT:-problem}
SITE=${SITE:-router}
TAG=$([ "$VARIANT" = problem ] && echo full || echo ok)
CT=/proc/sys/net/netfilter/nf_conntrack_max
CT_OLD=$(cat "$CT")
CT_SET=0
ct_restore() { if [ "$CT_SET" = 1 ]; then echo "$CT_OLD" > "$CT"; CT_SET=0; echo "nf_conntrack_max restored to $(cat "$CT")"; fi; }
trap 'ct_restore; cleanup' EXIT
ID=$([ "$SITE" = router ] && echo st || echo sts)
CLI=px4-$ID-cli SRV=px4-$ID-srv
mkns "$CLI"; mkns "$SRV"
if [ "$SITE" = router ]; then
  RTR=px4-$ID-rtr
  mkns "$RTR"
  mkveth "$CLI" px4-st-c 02:25:01:00:00:01 "$RTR" px4-st-rc 02:25:01:00:00:fe
  mkveth "$RTR" px4-st-rs 02:25:02:00:00:fe "$SRV" px4-st-s 02:25:02:00:00:02
  CIF=px4-st-c SIF=px4-st-s SIP=10.204.2.2 NET=10.204.1
  ip -n "$RTR" addr add 10.204.1.254/24 dev px4-st-rc
  ip -n "$RTR" addr add 10.204.2.254/24 dev px4-st-rs
  ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1
  ip -n "$SRV" addr add 10.204.2.2/24 dev "$SIF"
  ip -n "$SRV" route add default via 10.204.2.254
  ip -n "$SRV" neigh replace 10.204.2.254 lladdr 02:25:02:00:00:fe dev "$SIF" nud permanent
  ip -n "$RTR" neigh replace 10.204.2.2 lladdr 02:25:02:00:00:02 dev px4-st-rs nud permanent
  GW=10.204.1.254 GWMAC=02:25:01:00:00:fe
  CTNS=$RTR
  # stateful forwarding: conntrack tracks every forwarded connection
  ip netns exec "$RTR" nft -f - <<'NFT'
table ip px4 {
  chain px4fwd {
    type filter hook forward priority 0; policy drop;
    ct state established,related accept
    ct state new tcp dport { 80, 8080 } accept
  }
}
NFT
else
  mkveth "$CLI" px4-sts-c 02:25:03:00:00:01 "$SRV" px4-sts-s 02:25:03:00:00:64
  CIF=px4-sts-c SIF=px4-sts-s SIP=10.204.3.100 NET=10.204.3
  ip -n "$SRV" addr add 10.204.3.100/24 dev "$SIF"
  GW= GWMAC=
  CTNS=$SRV
  # the server's own stateful input filter
  ip netns exec "$SRV" nft -f - <<'NFT'
table ip px4 {
  chain px4in {
    type filter hook input priority 0; policy drop;
    iif lo accept
    ct state established,related accept
    ct state new tcp dport { 80, 8080 } accept
  }
}
NFT
fi
SRCS=$NET.1,$NET.2,$NET.3
CMAC=$(ip -n "$CLI" -br link show "$CIF" | awk '{print $3}')
for x in 1 2 3; do
  ip -n "$CLI" addr add "$NET.$x/24" dev "$CIF"
  if [ "$SITE" = router ]; then
    ip -n "$RTR" neigh replace "$NET.$x" lladdr "$CMAC" dev px4-st-rc nud permanent
  else
    ip -n "$SRV" neigh replace "$NET.$x" lladdr "$CMAC" dev "$SIF" nud permanent
  fi
done
if [ -n "$GW" ]; then
  ip -n "$CLI" route add 10.204.2.0/24 via "$GW"
  ip -n "$CLI" neigh replace "$GW" lladdr "$GWMAC" dev "$CIF" nud permanent
else
  ip -n "$CLI" neigh replace "$SIP" lladdr 02:25:03:00:00:64 dev "$CIF" nud permanent
fi

timeout 40 ip netns exec "$SRV" $PY "$HERE/../statetable-full-client/statetable.py" server --ports 80,8080 --timeout 35 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
wait_listen "$SRV" 8080
if [ "$SITE" = router ]; then
  OUTC=$HERE/../statetable-$TAG-client/statetable-$TAG-client.pcap
  OUTR=$HERE/../statetable-$TAG-router/statetable-$TAG-router.pcap
  mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTR")"
  cap_start "$CLI" "$CIF" "$OUTC" -s 96 tcp
  CAPC=$CAP_PID
  cap_start "$RTR" any "$OUTR" -s 96 tcp
  CAPR=$CAP_PID
else
  OUTS=$HERE/statetable-host-server.pcap
  SNAP=$TMP/snap; mkdir -p "$SNAP"; HS="$HERE/../tools/host_snap.sh"
  mkdir -p "$(dirname "$OUTS")"
  cap_start "$SRV" "$SIF" "$OUTS" -s 96 tcp
  CAPS=$CAP_PID
fi
if [ "$VARIANT" = problem ]; then
  CT_SET=1
  echo 64 > "$CT"
  echo "nf_conntrack_max set to $(cat "$CT") (was $CT_OLD)"
fi
# 70 long-lived connections (the 65th and later meet the full table), pings every 3 s; from
# t=2.0 s one new connection per (source, port), 0.2 s apart; the application gives a pending
# connect() up after 4.5 s (SYNs at 0, 1, 2, 3, 4 s). The table stays at 64 for ~9 s.
( sleep 1.5; bash "$HS" "$SRV" "$SNAP" before
  for k in $(seq -w 0 9); do sleep 0.5; bash "$HS" "$SRV" "$SNAP" during$k ss; done ) &
SNAPPID=$!; PIDS+=($SNAPPID)
timeout 15 ip netns exec "$CLI" $PY "$HERE/../statetable-full-client/statetable.py" client --server "$SIP" --srcs "$SRCS" \
  --long 70 --interval 3 --new-at 2.0 --new-gap 0.2 --new-ports 80,8080 --syncnt 3 --give-up 4.5 --duration 8 || true
echo "conntrack entries in $CTNS: $(ip netns exec "$CTNS" cat /proc/sys/net/netfilter/nf_conntrack_count)"
ip netns exec "$CTNS" conntrack -S 2>/dev/null | awk '{s=0; for(i=1;i<=NF;i++) if ($i ~ /^(drop|early_drop|insert_failed)=/) printf "%s ", $i; print ""}' | sort | uniq -c || true
wait $SNAPPID 2>/dev/null || true
bash "$HS" "$SRV" "$SNAP" after
tar -czf "$HERE/host.tgz" -C "$SNAP" .
ct_restore
if [ "$SITE" = router ]; then
  cap_stop "$CAPC" 1; cap_stop "$CAPR" 0
  echo "wrote $OUTC $OUTR"
else
  cap_stop "$CAPS" 1
  echo "wrote $OUTS"
fi
