#!/bin/bash
# pcapdoc golden captures: reset-unread-data-{client,server} and the control
# reset-unread-data-ok-{client,server} (VARIANT=ok). Run as root; ~5 s; cleans up.
#
# client 10.90.21.2 -- router (TUN forwarder, 10 ms each way) -- server 10.90.149.2:8080.
# The client uploads: a 200-byte request header, then a 32768-byte body in 4096-byte writes
# 10 ms apart (like an HTTP client that does not wait for 100-continue).
#   problem: the server reads the 200-byte header only, thinks 50 ms, writes a 150-byte
#            answer ("413") and close()s with the body still unread in its receive queue:
#            the kernel sends RST instead of FIN (TcpExtTCPAbortOnClose); the client's
#            segments still in flight are answered by RSTs from a stack with no socket.
#   ok:      the server reads header and body, thinks 50 ms, answers, close()s: FIN.
# Captures at the same time on the client's veth (c0) and the server's veth (s0).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; BODYREAD=0; N=21 ;;
  ok)      SUF=-ok; BODYREAD=32768; N=22 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
pdr_chain ru$N $N 10 20
OUTC=$HERE/../reset-unread-data$SUF-client/reset-unread-data$SUF-client.pcap
OUTS=$HERE/../reset-unread-data$SUF-server/reset-unread-data$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 200 --upload-body $BODYREAD --think-ms 50 --resp-size 150 --timeout 12 &
PIDS+=($!)
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 200 --upload-body 32768 --chunk 4096 --chunk-gap-ms 10 --resp-size 150 \
  --reply-timeout 2 --wait 0.3 --timeout 10 || true
sleep 0.5
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
