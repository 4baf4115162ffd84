#!/bin/bash
# pcapdoc golden captures: reset-stale-connection-{client,server} and the control
# reset-stale-connection-ok-{client,server} (VARIANT=ok). Run as root; ~4 s; cleans up.
#
# client 10.90.25.2 -- router (TUN forwarder, 10 ms each way) -- server 10.90.153.2:8080.
# One connection; the client sends a 100-byte request at t=0 (answered with 200 bytes) and a
# second one 2.0 s later.
#   problem: at ~0.6 s the server host "restarts" without the client learning it: nft in the
#            server namespace drops every packet the server sends from port 8080 (output
#            hook, so they never reach its veth or the capture), the server process is killed
#            (SIGKILL: the kernel's FIN is dropped), `ss -K` destroys the orphaned socket (its
#            RST is dropped too), a new server process listens again, and the nft rule is
#            removed at ~1.1 s. The client's second request then reaches a stack that has no
#            socket for that 4-tuple and is answered by a RST.
#   ok:      nothing is killed; the second request is answered.
# Captures at the same time on the client's veth (c0) and the server's veth (s0).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; N=25 ;;
  ok)      SUF=-ok; N=26 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
pdr_chain rs$N $N 10 20
OUTC=$HERE/../reset-stale-connection$SUF-client/reset-stale-connection$SUF-client.pcap
OUTS=$HERE/../reset-stale-connection$SUF-server/reset-stale-connection$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
start_server() {
  timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
    --req-size 100 --resp-size 200 --timeout 12 &
  SPID=$!; PIDS+=("$SPID")
}
start_server
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,2.0 --reply-timeout 2 --timeout 10 &
CPID=$!; PIDS+=("$CPID")
sleep 0.6
if [ "$VARIANT" = problem ]; then
  ip netns exec "$SRV" nft -f - <<'NFT'
table ip pdrstale {
  chain out { type filter hook output priority filter; policy accept; tcp sport 8080 counter drop; }
}
NFT
  # SIGKILL the python under timeout(1): the kernel closes the socket (FIN, dropped by nft)
  pkill -KILL -P "$SPID" || true
  wait "$SPID" 2>/dev/null || true
  sleep 0.1
  echo "server sockets before ss -K:"; ip netns exec "$SRV" ss -tanoi "sport = :8080" || true
  ip netns exec "$SRV" ss -K "sport = :8080" >/dev/null 2>&1 || true
  echo "server sockets after ss -K:"; ip netns exec "$SRV" ss -tan "sport = :8080" || true
  start_server
  wait_listen "$SRV" 8080
  sleep 0.2
  echo "nft drop counter:"; ip netns exec "$SRV" nft list chain ip pdrstale out | grep counter || true
  ip netns exec "$SRV" nft delete table ip pdrstale
fi
wait "$CPID" || true
sleep 0.3
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
