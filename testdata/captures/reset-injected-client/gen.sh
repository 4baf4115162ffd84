#!/bin/bash
# pcapdoc golden captures: reset-injected-{client,server} and the control
# reset-injected-ok-{client,server} (VARIANT=ok). Run as root; ~3 s; cleans up.
#
# client 10.90.27.2 -- router (TUN forwarder, 10 ms each way) -- server 10.90.155.2:8080.
# One connection, two 100-byte requests 0.3 s apart, each answered with 200 bytes.
# In the router, tools/rst_inject.py watches the client-facing veth for requests containing
# "BLOCKME" and forges a RST|ACK to the client (from the server's address, at once) and one to
# the server (from the client's address, 15 ms later, after the real request got there):
# TTL 64, IP ID 0x2a2a / 0x2a2b, DF clear, no TCP options, window 0.
#   problem: the second request starts with "GET /BLOCKME".
#   ok:      no request contains it (the injector runs all the same).
# Captures at the same time on the client's veth (c0) and the server's veth (s0).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; TAG="GET /BLOCKME "; N=27 ;;
  ok)      SUF=-ok; TAG="GET /index "; N=28 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
pdr_chain ri$N $N 10 20
OUTC=$HERE/../reset-injected$SUF-client/reset-injected$SUF-client.pcap
OUTS=$HERE/../reset-injected$SUF-server/reset-injected$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --timeout 12 &
PIDS+=($!)
wait_listen "$SRV" 8080
timeout 15 ip netns exec "$RTR" $PY "$TOOLS/rst_inject.py" --iface "$RCIF" --match BLOCKME \
  --server-delay-ms 15 --duration 10 &
PIDS+=($!)
sleep 0.3
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,0.3 --tag "$TAG" --tag-from 2 --reply-timeout 1 \
  --wait 0.3 --timeout 10 || true
sleep 0.3
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
