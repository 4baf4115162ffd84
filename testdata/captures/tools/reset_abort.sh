#!/bin/bash
# reset_abort.sh MODE CLIENT.pcap [SERVER.pcap] : an established connection
# the server ends with a TLS-like alert and then RST (MODE abort) or FIN
# (MODE fin, the control twin), while the client is still sending.
#
# client pdt-ra-cli 10.93.60.2 -- router pdt-ra-rtr (TUN delay 10 ms each
# way, tun_delay.py) -- server pdt-ra-srv 10.93.61.2:8443.
# abort_app.py: the client writes 300 B, then 500 B every 20 ms until the
# server's alert + close reaches it; the server reads the 300 B, waits 100 ms
# (reading), writes the 7-byte alert record 15 03 03 00 02 02 28, then
#   abort: SO_LINGER {1, 0} + close(): RST at once, and RST again for each
#          client segment that arrives afterwards;
#   fin:   shutdown(SHUT_WR), reads to the client's FIN, close().
# Captures (same run, tcpdump -s 128, tcp port 8443): client eth0, server eth0.
set -u
MODE=$1 CPCAP=$2 SPCAP=${3:-}
OUT_DIR=$(cd "$(dirname "$CPCAP")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-ra
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
case $MODE in abort|fin) ;; *) echo "unknown mode $MODE" >&2; exit 2;; esac
n93_chain $P 60 || exit 1
n93_tunpath $P timeout 30 $PY "$TOOLS93/tun_delay.py" --dev tun0 --delay-ms 10 --duration 25 || exit 1
n93_warm $P-cli 10.93.61.2
ip netns exec $P-srv timeout 20 $PY "$TOOLS93/abort_app.py" server --addr 10.93.61.2 --close $MODE --timeout 15 &
SRV=$!
wait_listen $P-srv 8443 || exit 1
cap_start $P-cli eth0 "$CPCAP" 128 15 tcp port 8443
[ -n "$SPCAP" ] && cap_start $P-srv eth0 "$SPCAP" 128 15 tcp port 8443
ip netns exec $P-cli timeout 20 $PY "$TOOLS93/abort_app.py" client --addr 10.93.61.2 --timeout 15
wait $SRV
sleep 0.3
cap_stop_all
exit 0
