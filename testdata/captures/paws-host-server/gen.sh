#!/bin/bash
# paws-host-server: issue 35 (pcapdoc --host). The setup of ../paws-rejected-data-client/gen.sh
# (VARIANT=problem: the router rewrites the client's TSval 2^30 back from its second request
# on), namespaces px4-*, addresses 10.204.x.x, the server vantage only, and the host snapshots
# of ../tools/host_snap.sh taken IN the server's namespace at the start and the end of the
# capture; host.tgz beside it. Run as root; cleans up.
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
# tools/pdr_lib.sh with this run's namespace prefix and subnet (px4-, 10.204.x.x)
. <(sed 's/pdr-/px4-/g; s/10\.90\./10.204./g; s|^TOOLS=.*|TOOLS='"$HERE/../tools"'|' "$HERE/../tools/pdr_lib.sh")
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; N=33 ;;
  ok)      SUF=-ok; N=34 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
MANGLE_ARGS=
# shellcheck disable=SC2034  # read by pdr_chain (pdr_lib.sh)
[ "$VARIANT" = problem ] && MANGLE_ARGS="--ts-src 10.204.$N.2 --ts-shift 1073741824 --ts-from-data 2"
pdr_chain pw$N $N 10 20
OUTC=$TMP/client.pcap  # not kept
OUTS=$HERE/paws-host-server.pcap
SNAP=$TMP/snap; mkdir -p "$SNAP"; HS="$HERE/../tools/host_snap.sh"
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
timeout 15 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --timeout 10 &
PIDS+=($!)
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
bash "$HS" "$SRV" "$SNAP" before
timeout 15 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,1.0 --reply-timeout 4 --timeout 10 || true
sleep 0.3
echo "server socket:"; ip netns exec "$SRV" ss -tanoi "sport = :8080" | grep -v LISTEN || true
bash "$HS" "$SRV" "$SNAP" after
tar -czf "$HERE/host.tgz" -C "$SNAP" .
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge|DupAck|OldAck|Skipped'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
