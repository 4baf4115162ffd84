#!/bin/bash
# pcapdoc golden captures: middlebox-idle-timeout-{client,server,router} (VARIANT=drop, the
# default), middlebox-idle-timeout-rst-{client,server} (VARIANT=rst) and the control
# middlebox-idle-timeout-ok-{client,server} (VARIANT=ok). Run as root; ~10 s; cleans up.
#
# client 10.90.29.2 -- router (TUN forwarder, 10 ms each way, then a stateful firewall)
# -- server 10.90.157.2:8080.
# Router firewall (nft, conntrack), applied to packets leaving the delay line (iif tun0;
# packets entering it are untracked): forward policy drop; established/related accepted;
# invalid dropped; a new connection only by a SYN; everything else (a non-SYN packet whose
# conntrack entry is gone) dropped (drop, ok) or answered with a TCP reset (rst), which the
# router sends straight back (no delay). Every connection gets the nft ct timeout object
# "idle4": established timeout 4 s (the stock value is 432000 s; the same effect as
# net.netfilter.nf_conntrack_tcp_timeout_established=4 in the router namespace).
# One connection: a 100-byte request at t=0 (200-byte answer), then idle. The server pushes an
# unsolicited 120-byte message after 4.6 s idle; the client sends its second request at 5.0 s
# and waits 4 s for the answer, then closes.
#   drop/rst: no keepalive; the conntrack entry expires at ~4 s, so the push and the second
#             request are dropped (retransmitted into silence) or reset by the firewall.
#   ok:       the client sets SO_KEEPALIVE, TCP_KEEPIDLE 2, TCP_KEEPINTVL 1, TCP_KEEPCNT 3:
#             probes every 2 s keep the entry alive; push and request get through.
# Captures at the same time on the client's veth (c0), the server's veth (s0) and (drop only)
# the router's client-facing veth (rc).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-drop}
KA=
case $VARIANT in
  drop) SUF=; VERDICT="counter drop"; N=29 ;;
  rst)  SUF=-rst; VERDICT="counter reject with tcp reset"; N=30 ;;
  ok)   SUF=-ok; VERDICT="counter drop"; KA="--keepalive 2,1,3"; N=31 ;;
  *) echo "VARIANT must be drop, rst or ok" >&2; exit 2 ;;
esac
pdr_chain mi$N $N 10 25
OUTC=$HERE/../middlebox-idle-timeout$SUF-client/middlebox-idle-timeout$SUF-client.pcap
OUTS=$HERE/../middlebox-idle-timeout$SUF-server/middlebox-idle-timeout$SUF-server.pcap
OUTR=$HERE/../middlebox-idle-timeout$SUF-router/middlebox-idle-timeout$SUF-router.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
ip netns exec "$RTR" nft -f - <<NFT
table ip pdrfw {
  ct timeout idle4 { protocol tcp; l3proto ip; policy = { established: 4 }; }
  chain raw { type filter hook prerouting priority raw; policy accept; iifname != "tun0" notrack; }
  chain pre { type filter hook prerouting priority filter; policy accept; ct state new ct timeout set "idle4"; }
  chain filt {
    type filter hook forward priority filter; policy drop;
    iifname != "tun0" accept
    ct state established,related accept
    ct state invalid counter drop
    tcp flags & (syn | ack | fin | rst) == syn ct state new accept
    $VERDICT
  }
}
NFT
timeout 20 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --push-after 4.6 --push-size 120 --timeout 11 &
PIDS+=($!)
wait_listen "$SRV" 8080
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
CR=
if [ "$VARIANT" = drop ]; then
  mkdir -p "$(dirname "$OUTR")"; cap_start "$RTR" "$RCIF" "$OUTR" tcp; CR=$CAP_PID
fi
# shellcheck disable=SC2086
timeout 20 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" client --addr "$SIP" --port 8080 \
  --req-size 100 --resp-size 200 --at 0,5.0 --reply-timeout 4 $KA --timeout 12 || true
sleep 0.5
cap_stop "$CC" 0; cap_stop "$CS" 0
[ -n "$CR" ] && cap_stop "$CR" 0.3
sleep 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge|KeepAlive'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
echo "router firewall counters:"; ip netns exec "$RTR" nft list chain ip pdrfw filt | grep counter || true
pdr_mangle_report
echo "wrote $OUTC $OUTS ${CR:+$OUTR}"
