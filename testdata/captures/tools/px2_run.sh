#!/bin/bash
# px2_run.sh SCENARIO : issue-34 captures (a connection reset after its own
# close; responses held by TCP_CORK). Run as root; namespaces px2-*,
# addresses 10.202.0.0/16 (vb_lib.sh with VB_NET=202, VB_PREFIX=px2-):
# client px2-X-cli 10.202.1.2 -- router px2-X-rtr (tun_delay.py, 10 ms each
# way) -- server px2-X-srv 10.202.2.2. One run writes the client-side and the
# server-side capture (tcpdump -s 128 on each host's eth0) into
# ../<name>-client/ and ../<name>-server/, and the applications' JSON lines
# into ../<name>-client/run.txt.
#   close   abort_app.py: the server reads the client's 300 B, 100 ms more,
#           writes a 7-byte TLS alert and close()s with nothing unread (FIN);
#           the client keeps writing 500 B every 20 ms (--ignore-eof): its
#           data reaching the closed socket draws RSTs   -> reset-after-close
#   closeok the same alert, then shutdown(SHUT_WR), read to the client's FIN,
#           close(); the client stops at the FIN          -> reset-after-close-ok
#   cork    corkapp.py: TCP_CORK set once, never cleared; 20 requests, responses
#           300,900,3000,150,1300,5000 B                  -> cork
#   slowapp corkapp.py: no cork, think time uniform 250-350 ms  -> slowapp
set -u
SC=$1
T=$(cd "$(dirname "$0")" && pwd)
VB_NET=202 VB_PREFIX=px2-
. "$T/vb_lib.sh"
case $SC in
close) NAME=reset-after-close ;;
closeok) NAME=reset-after-close-ok ;;
cork) NAME=cork ;;
slowapp) NAME=slowapp ;;
*) echo "unknown scenario $SC" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
P=px2-$SC
CD="$T/../$NAME-client" SD="$T/../$NAME-server"
mkdir -p "$CD" "$SD"
OUT_DIR=$CD
trap 'cap_stop_all 2>/dev/null; vb_dr_down $P' EXIT
vb_dr_down $P
vb_dr_up $P 10 40 || exit 1
S=10.202.2.2
case $SC in
close|closeok) PORT=8443 ;;
*) PORT=8080 ;;
esac
case $SC in
close) SARGS="server --addr $S --close close"; CARGS="client --addr $S --ignore-eof" ;;
closeok) SARGS="server --addr $S --close fin"; CARGS="client --addr $S" ;;
cork) SARGS="server --addr $S --cork"; CARGS="client --addr $S" ;;
slowapp) SARGS="server --addr $S --think-ms 250,350"; CARGS="client --addr $S" ;;
esac
case $SC in close|closeok) APP=$T/abort_app.py ;; *) APP=$T/corkapp.py ;; esac
ip netns exec $P-srv timeout 30 $PY "$APP" $SARGS --timeout 25 > /tmp/$P-srv.out 2>&1 &
SRV=$!
wait_listen $P-srv $PORT || exit 1
cap_start $P-cli eth0 "$CD/$NAME-client.pcap" 128 30 tcp port $PORT
cap_start $P-srv eth0 "$SD/$NAME-server.pcap" 128 30 tcp port $PORT
ip netns exec $P-cli timeout 30 $PY "$APP" $CARGS --timeout 25 > /tmp/$P-cli.out 2>&1
wait $SRV
sleep 0.5
cap_stop_all
{ cat /tmp/$P-cli.out; cat /tmp/$P-srv.out; } > "$CD/run.txt"
ip netns exec $P-srv nstat -az TcpExtTCPAbortOnData TcpExtTCPAbortOnClose TcpOutRsts 2>/dev/null >> "$CD/run.txt"
rm -f /tmp/$P-cli.out /tmp/$P-srv.out
cat "$CD/run.txt"
exit 0
