#!/bin/bash
# pcapdoc golden captures: paws-rejected-data-{client,server} and the control
# paws-rejected-data-ok-{client,server} (VARIANT=ok). Run as root; ~6 s; cleans up.
#
# client 10.90.33.2 -- router (TUN forwarder tools/tun_mangle.py, 10 ms each way)
# -- server 10.90.161.2:8080. One connection, timestamps on (Linux default
# net.ipv4.tcp_timestamps=1), a 100-byte request at t=0 and a second one at t=1.0 s, each
# answered with 200 bytes; the client waits 4 s for the second answer, then closes.
#   problem: from the client's second data segment on, the router subtracts 2^30 from the
#            TSval of every packet the client sends (and fixes the TCP checksum): a middlebox
#            whose timestamp rewriting jumps backwards mid-connection. The server's PAWS check
#            rejects every such segment as old (TcpExtPAWSEstab) and answers each with a
#            duplicate ACK (data segments are exempt from net.ipv4.tcp_invalid_ratelimit);
#            the client retransmits on RTO.
#   ok:      the same forwarder rewrites nothing.
# Captures at the same time on the client's veth (c0, original timestamps) and the server's
# veth (s0, rewritten timestamps).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; N=33 ;;
  ok)      SUF=-ok; N=34 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
MANGLE_ARGS=
# shellcheck disable=SC2034  # read by pdr_chain (pdr_lib.sh)
[ "$VARIANT" = problem ] && MANGLE_ARGS="--ts-src 10.90.$N.2 --ts-shift 1073741824 --ts-from-data 2"
pdr_chain pw$N $N 10 20
OUTC=$HERE/../paws-rejected-data$SUF-client/paws-rejected-data$SUF-client.pcap
OUTS=$HERE/../paws-rejected-data$SUF-server/paws-rejected-data$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --timeout 10 &
PIDS+=($!)
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,1.0 --reply-timeout 4 --timeout 10 || true
sleep 0.3
echo "server socket:"; ip netns exec "$SRV" ss -tanoi "sport = :8080" | grep -v LISTEN || true
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge|DupAck|OldAck|Skipped'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
