#!/bin/bash
# pcapdoc golden captures: accept-queue-cookie-{client,server} and the control
# accept-queue-cookie-ok-{client,server} (VARIANT=ok). Run as root; ~6 s; cleans up.
#
# client 10.90.35.2 -- router (TUN forwarder, 10 ms each way) -- server 10.90.163.2:8080.
# The server application calls listen(511) and is slow: it accept()s its first connection
# 1.0 s after the burst and then one connection per second, each time reading the 100-byte
# request, answering 200 bytes and closing when the client closes.
# net.ipv4.tcp_syncookies=1 and net.ipv4.tcp_abort_on_overflow=0 (defaults) on the server.
# The client opens 4 connections at once (non-blocking connect()s) and sends its request on
# each as soon as it is connected; it closes each connection once answered.
#   problem: net.core.somaxconn=1 in the server namespace, so the listen backlog is 1:
#            the first two SYNs get request sockets, the SYN queue is then "full" (2 > 1) and
#            the next two SYNs are answered with SYN cookies (TcpExtSyncookiesSent). Their
#            handshake ACKs (and the requests behind them) arrive when the accept queue
#            already holds 2 connections: dropped (TcpExtListenOverflows). A cookie keeps no
#            request socket, so no SYN-ACK is ever retransmitted; the clients, connected in
#            their own eyes, retransmit their requests on RTO until one arrives when the
#            application has accept()ed and a slot is free: the cookie in it is still valid
#            and the connection is created from that data segment.
#   ok:      net.core.somaxconn=4096 (default): 4 request sockets, all handshakes complete,
#            every request is ACKed at once (answered when the application gets to it).
# Captures at the same time on the client's veth (c0) and the server's veth (s0).
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$HERE/../tools/pdr_lib.sh"
VARIANT=${VARIANT:-problem}
case $VARIANT in
  problem) SUF=; SOMAX=1; N=35 ;;
  ok)      SUF=-ok; SOMAX=4096; N=36 ;;
  *) echo "VARIANT must be problem or ok" >&2; exit 2 ;;
esac
pdr_chain aq$N $N 10 25
OUTC=$HERE/../accept-queue-cookie$SUF-client/accept-queue-cookie$SUF-client.pcap
OUTS=$HERE/../accept-queue-cookie$SUF-server/accept-queue-cookie$SUF-server.pcap
mkdir -p "$(dirname "$OUTC")" "$(dirname "$OUTS")"
ip netns exec "$SRV" sysctl -qw net.core.somaxconn=$SOMAX net.ipv4.tcp_syncookies=1 net.ipv4.tcp_abort_on_overflow=0
# the application starts its 1-second accept pace ~1.5 s after it listens (the burst comes ~0.5 s after listen)
timeout 20 ip netns exec "$SRV" $PY "$TOOLS/rstapp.py" server --addr "$SIP" --port 8080 --backlog 511 \
  --conns 4 --accept-delay 1.5 --accept-interval 1.0 --req-size 100 --resp-size 200 --timeout 15 &
PIDS+=($!)
wait_listen "$SRV" 8080
echo "listener:"; ip netns exec "$SRV" ss -ltn "sport = :8080"
nst_save "$SRV" "$TMP/s0"; nst_save "$CLI" "$TMP/c0"
cap_start "$CLI" "$CIF" "$OUTC" tcp; CC=$CAP_PID
cap_start "$SRV" "$SIF" "$OUTS" tcp; CS=$CAP_PID
timeout 20 ip netns exec "$CLI" $PY "$TOOLS/rstapp.py" burst --addr "$SIP" --port 8080 --conns 4 \
  --req-size 100 --resp-size 200 --reply-timeout 9 --timeout 12 || true
sleep 0.3
cap_stop "$CC" 0; cap_stop "$CS" 0.3
nst_save "$SRV" "$TMP/s1"; nst_save "$CLI" "$TMP/c1"
RE='Rst|Abort|Retrans|Timeout|InSegs|OutSegs|PAWS|Listen|ookie|Challenge|ReqQ|SynRetrans'
echo "server counters:"; nst_diff "$TMP/s0" "$TMP/s1" "$RE"
echo "client counters:"; nst_diff "$TMP/c0" "$TMP/c1" "$RE"
pdr_mangle_report
echo "wrote $OUTC $OUTS"
