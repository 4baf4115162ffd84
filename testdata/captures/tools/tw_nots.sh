#!/bin/bash
# tw_nots.sh MODE SERVER.pcap [ROUTER.pcap] : a client WITHOUT TCP timestamps
# reuses its 4-tuple while the server holds the previous connection in
# TIME_WAIT; its new SYN's sequence number is not above the old connection's.
#
# client pdt-tn-cli 10.93.50.2 -- router pdt-tn-rtr -- server pdt-tn-srv
# 10.93.51.2:80 (httpd.py --close-first server: answer, then the server's
# FIN first, so the SERVER holds TIME_WAIT). Client: net.ipv4.tcp_timestamps=0
# (no TS option, like a Windows client). client.py: HTTP/1.0 GET from the
# fixed source port 40000 (SO_REUSEADDR), wait for the server's FIN; 1 s
# later the same again from port 40000.
# The router sends every packet through tun0 and isn_shift.py (no delay):
# MODE:
#   shift  the 2nd connection's client sequence numbers are moved down by
#          1000000000 (the server's ACK numbers up by as much), as a
#          sequence-randomising firewall would: the new SYN is below the old
#          connection's rcv_nxt, so the server's TIME_WAIT socket answers it
#          with an ACK for the old connection (a challenge ACK)
#   ok     shift 0 (control twin): the new SYN's ISN, from the kernel's clock-
#          driven ISN generator, is above the old one and TIME_WAIT accepts it
# Captures (same run, tcpdump -s 128, tcp port 80): server eth0 and router
# to-srv (both after the rewriting, so both see one consistent sequence space).
set -u
MODE=$1 SPCAP=$2 RPCAP=${3:-}
OUT_DIR=$(cd "$(dirname "$SPCAP")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-tn
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
case $MODE in shift) K=1000000000;; ok) K=0;; *) echo "unknown mode $MODE" >&2; exit 2;; esac
n93_chain $P 50 || exit 1
n93_tunpath $P timeout 40 $PY "$TOOLS93/isn_shift.py" --dev tun0 --client 10.93.50.2 --port 80 \
    --shift $K --duration 35 || exit 1
ip netns exec $P-cli sysctl -qw net.ipv4.tcp_timestamps=0
n93_warm $P-cli 10.93.51.2
ip netns exec $P-srv timeout 30 $PY "$TOOLS93/httpd.py" --host 10.93.51.2 --port 80 --close-first server \
    --timeout 25 > /dev/null &
SRV=$!
wait_listen $P-srv 80 || exit 1
cap_start $P-srv eth0 "$SPCAP" 128 20 tcp port 80
[ -n "$RPCAP" ] && cap_start $P-rtr to-srv "$RPCAP" 128 20 tcp port 80
ip netns exec $P-cli timeout 20 $PY "$TOOLS93/client.py" get 10.93.51.2 80 --ver 1.0 --sport 40000 --wait-eof --timeout 10
sleep 1
ip netns exec $P-srv ss -tan state time-wait
ip netns exec $P-cli timeout 20 $PY "$TOOLS93/client.py" get 10.93.51.2 80 --ver 1.0 --sport 40000 --wait-eof --timeout 10
cap_stop_all
ip netns exec $P-srv nstat -az TcpExtTW 2>/dev/null | grep -v "^#"
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
exit 0
