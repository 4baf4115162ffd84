#!/bin/bash
# tunnel_zerowin.sh MODE OUT.pcap : the zero-window transfer of ../zero-window
# (smaller), carried plain or inside a tunnel, captured on the UNDERLAY.
#
# Hosts: A (pdt-tz-a, client, the slow reader) and B (pdt-tz-b, server, the
# sender) on one veth, underlay 10.93.10.1 (A) / 10.93.10.2 (B).
# MODE:
#   plain         no tunnel: TCP 10.93.10.1 -> 10.93.10.2:5004
#   vxlan         kernel VXLAN (id 42, UDP 4789), overlay 10.93.110.1/.2, MTU 1450
#   vxlan-healthy as vxlan, but the client reads at full speed (no problem)
#   gre           GRE (IP in GRE), overlay on TUN gre0, MTU 1476      } tunencap.py:
#   gretap        GRE 0x6558 + Ethernet, overlay on TAP, MTU 1462     } this kernel has
#   erspan        GRE 0x88BE + ERSPAN II + Ethernet, TAP, MTU 1450    } no ip_gre or
#   geneve        UDP 6081 + GENEVE + Ethernet, TAP, MTU 1450         } geneve module
# Application (tcpapp.py): the server sends 150000 B; the client sets
# SO_RCVBUF=4096 before connect (kernel: 8192, no autotuning), reads 4096 B
# every 100 ms and stops reading for 1.5 s once 60000 B were read.
# TSO/GSO off on B's eth0 and tunnel device. Capture: B's eth0 (underlay),
# snaplen 160 (outer + inner headers), filter = the tunnel's outer protocol.
set -u
MODE=$1 OUT=$2
OUT_DIR=$(cd "$(dirname "$OUT")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-tz
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
n93_pair $P 10 || exit 1
A=$P-a B=$P-b
PIDS=()
case $MODE in
plain)
    CA=10.93.10.1 CB=10.93.10.2 FILTER="tcp port 5004" TDEV=eth0 ;;
vxlan|vxlan-healthy)
    for s in "a 1 2" "b 2 1"; do set -- $s
        ip -n $P-$1 link add vx0 type vxlan id 42 local 10.93.10.$2 remote 10.93.10.$3 dstport 4789 dev eth0
        ip -n $P-$1 addr add 10.93.110.$2/24 dev vx0
    done
    CA=10.93.110.1 CB=10.93.110.2 FILTER="udp port 4789" TDEV=vx0 ;;
gre|gretap|erspan|geneve)
    case $MODE in gre) MTU=1476;; gretap) MTU=1462;; *) MTU=1450;; esac
    for s in "a 1 2" "b 2 1"; do set -- $s
        ip netns exec $P-$1 timeout 40 $PY "$TOOLS93/tunencap.py" --mode $MODE --dev tn0 --id 42 \
            --local 10.93.10.$2 --remote 10.93.10.$3 --duration 35 > /tmp/$P-$1-encap.log 2>&1 &
        PIDS+=($!)
        for i in $(seq 1 50); do grep -q ready /tmp/$P-$1-encap.log 2>/dev/null && break; sleep 0.1; done
        if [ $MODE = gre ]; then
            ip -n $P-$1 addr add 10.93.110.$2 peer 10.93.110.$3 dev tn0
        else
            ip -n $P-$1 addr add 10.93.110.$2/24 dev tn0
        fi
    done
    CA=10.93.110.1 CB=10.93.110.2 TDEV=tn0
    case $MODE in geneve) FILTER="udp port 6081";; *) FILTER="ip proto 47";; esac ;;
*) echo "unknown mode $MODE" >&2; exit 2;;
esac
if [ $TDEV != eth0 ]; then
    for n in $A $B; do
        ip netns exec $n sysctl -qw net.ipv6.conf.$TDEV.disable_ipv6=1
        ip -n $n link set $TDEV mtu ${MTU:-1450} up
    done
    sleep 0.3
    n93_warm $A $CB
fi
ip netns exec $B ethtool -K eth0 tso off gso off >/dev/null 2>&1
ip netns exec $B ethtool -K $TDEV tso off gso off >/dev/null 2>&1
ip netns exec $B timeout 30 $PY "$TOOLS93/tcpapp.py" server --addr $CB --port 5004 --mode send \
    --bytes 150000 --timeout 25 &
SRV=$!
wait_listen $B 5004 || exit 1
cap_start $B eth0 "$OUT" 160 25 $FILTER
if [ $MODE = vxlan-healthy ]; then
    ip netns exec $A timeout 30 $PY "$TOOLS93/tcpapp.py" client --addr $CB --port 5004 --mode recv --timeout 25
else
    ip netns exec $A timeout 30 $PY "$TOOLS93/tcpapp.py" client --addr $CB --port 5004 --mode recv \
        --rcvbuf 4096 --read-chunk 4096 --read-interval 0.1 --pauses 60000:1.5 --timeout 25
fi
wait $SRV
cap_stop_all
for p in "${PIDS[@]}"; do kill $p 2>/dev/null; wait $p 2>/dev/null; done
cat /tmp/$P-a-encap.log /tmp/$P-b-encap.log 2>/dev/null | grep sent=; rm -f /tmp/$P-?-encap.log
