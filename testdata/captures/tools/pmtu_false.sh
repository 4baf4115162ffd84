#!/bin/bash
# pmtu_false.sh MODE CLIENT.pcap [SERVER.pcap] : random loss on a path whose
# sender always sends small segments (its own route MTU), seen from the
# receiver: looks like a PMTU black hole to a naive reading, is not one.
#
# client pdt-pf-cli 10.93.30.2 -- router pdt-pf-rtr (TUN delay 10 ms each
# way, tun_delay.py) -- server pdt-pf-srv 10.93.31.2, TCP port 5007.
# Server: `ip route replace default via 10.93.31.1 mtu 1240`, so it announces
# MSS 1200 and sends at most 1188-byte payloads (1240-byte packets) although
# the client announces MSS 1460 and every link is MTU 1500. TSO/GSO off on
# the server eth0. Application (vbapp.py): the server sends 600000 B in 6
# bursts of 100000 B, 1.5 s idle between bursts; the client reads to EOF.
# MODE:
#   loss  router forward hook, after the delay stage (iifname tun0 oifname
#         to-cli), data packets from the server: `numgen random mod 100 < 3`
#         drops the packet and puts the flow in a dynamic set; the next packet
#         of the flow is dropped too and taken out of the set: random loss of
#         ~3 % of the data packets, two consecutive packets each time
#   ok    no loss rule (control twin)
# Captures (same run, tcpdump -s 96, filter tcp port 5007): client eth0
# (receiver) and server eth0 (sender).
set -u
MODE=$1 CPCAP=$2 SPCAP=${3:-}
OUT_DIR=$(cd "$(dirname "$CPCAP")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-pf
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
n93_chain $P 30 || exit 1
n93_tunpath $P timeout 40 $PY "$TOOLS93/tun_delay.py" --dev tun0 --delay-ms 10 --duration 35 || exit 1
ip -n $P-srv route replace default via 10.93.31.1 mtu 1240
ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null 2>&1
n93_warm $P-cli 10.93.31.2
if [ $MODE = loss ]; then
    ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdt_loss {
    set pair {
        type ipv4_addr . inet_service; flags dynamic, timeout; timeout 5s;
    }
    chain forward_loss {
        type filter hook forward priority 0; policy accept;
        iifname "tun0" oifname "to-cli" ip saddr 10.93.31.2 tcp sport 5007 meta length > 200 ip saddr . tcp dport @pair delete @pair { ip saddr . tcp dport } counter drop
        iifname "tun0" oifname "to-cli" ip saddr 10.93.31.2 tcp sport 5007 meta length > 200 numgen random mod 100 < 3 add @pair { ip saddr . tcp dport } counter drop
    }
}
NFT
fi
ip netns exec $P-srv timeout 30 $PY "$TOOLS93/vbapp.py" server --addr 10.93.31.2 --port 5007 --mode send \
    --bytes 600000 --bursts 6 --idle 1.5 --timeout 25 &
SRV=$!
wait_listen $P-srv 5007 || exit 1
cap_start $P-cli eth0 "$CPCAP" 96 25 tcp port 5007
[ -n "$SPCAP" ] && cap_start $P-srv eth0 "$SPCAP" 96 25 tcp port 5007
ip netns exec $P-cli timeout 30 $PY "$TOOLS93/vbapp.py" client --addr 10.93.31.2 --port 5007 --mode recv --timeout 25
wait $SRV
cap_stop_all
ip netns exec $P-rtr nft list ruleset 2>/dev/null | grep counter
exit 0
