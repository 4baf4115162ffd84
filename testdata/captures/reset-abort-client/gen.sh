#!/bin/bash
# pcapdoc golden captures: reset-abort-{client,server} and the control
# reset-abort-ok-{client,server} (VARIANT=ok). Run as root; ~3 s; cleans up.
#
# client 10.90.23.2 -- router (TUN forwarder, 10 ms each way) -- server 10.90.151.2:8080.
# One persistent connection: the client sends three 100-byte requests 0.1 s apart (each
# answered with 200 bytes), then stays idle reading. The server closes a connection that has
# been idle 0.5 s (a keep-alive timeout).
#   problem: the server sets SO_LINGER {l_onoff=1, l_linger=0} before close() (an abortive
#            close, like nginx reset_timedout_connection or HAProxy option nolinger): the
#            kernel sends RST instead of FIN (TcpExtTCPAbortOnData, nothing unread).
#   ok:      plain close(): FIN, the client reads EOF and closes too.
# Captures at the same time on the client's veth (c0) and the server's veth (s0).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; LINGER=--linger0; N=23 ;;
  ok)      SUF=-ok; LINGER=; N=24 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
pdr_chain ra$N $N 10 20
OUTC=$HERE/../reset-abort$SUF-client/reset-abort$SUF-client.pcap
OUTS=$HERE/../reset-abort$SUF-server/reset-abort$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --idle-close 0.5 $LINGER --timeout 12 &
PIDS+=($!)
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,0.1,0.2 --reply-timeout 2 --wait 1.0 --timeout 10 || true
sleep 0.3
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
