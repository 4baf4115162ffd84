#!/bin/bash
# frag_capdrop.sh MODE FULL.pcap CUT.pcap : fragmented traffic that the
# receiver demonstrably got, captured at the receiver; CUT.pcap is FULL.pcap
# with a few fragment frames deleted (editcap), which is what a capture that
# dropped packets (tcpdump "dropped by kernel", a lossy SPAN port) looks like.
#
# client pdt-fc-cli 10.93.40.2 -- router pdt-fc-rtr (TUN delay 5 ms each way,
# tun_delay.py) -- server pdt-fc-srv 10.93.41.2.
# MODE:
#   udp  udp_reqresp.py: the client sends 20 requests of 60 B to UDP 40123, in
#        lock step (the next one only once the whole answer is in, then 200 ms
#        of think time); the server answers each with 4000 B, which leave as 3
#        IPv4 fragments (1480 + 1480 + 1048 B of payload) on the MTU 1500 path.
#        Deleted from CUT.pcap: the 2nd fragment of answers 3 and 8, the 3rd
#        of answer 13 (all more than 1 s before the end of the capture).
#   tcp  the server sends 60000 B on TCP 5008 in 3 bursts of 20000 B, 1.5 s
#        apart (vbapp.py), with `net.ipv4.ip_no_pmtu_disc=1` (no DF), TSO/GSO
#        off; the router's interface toward the client has MTU 1000 (the
#        client's eth0 keeps 1500, so it announces MSS 1460): every segment
#        above 948 B is fragmented by the router into 2 fragments. The client
#        reads to EOF. Deleted from CUT.pcap: the 2nd fragment of the 5th and
#        10th fragmented segments, the 1st fragment (with the TCP header) of
#        the 20th (bursts 1 and 2).
# Capture: client eth0 (the receiver), tcpdump -s 128, fragment-aware filter.
set -u
MODE=$1 FULL=$2 CUT=$3
OUT_DIR=$(cd "$(dirname "$FULL")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-fc
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
n93_chain $P 40 || exit 1
n93_tunpath $P timeout 40 $PY "$TOOLS93/tun_delay.py" --dev tun0 --delay-ms 5 --duration 35 || exit 1
n93_warm $P-cli 10.93.41.2
case $MODE in
udp)
    ip netns exec $P-srv timeout 25 $PY "$TOOLS93/udp_reqresp.py" server --addr 10.93.41.2 --port 40123 --resp-size 4000 --timeout 20 &
    SRV=$!
    sleep 0.3
    cap_start $P-cli eth0 "$FULL" 128 20 "udp port 40123 or (ip[6:2] & 0x1fff != 0)"
    ip netns exec $P-cli timeout 25 $PY "$TOOLS93/udp_reqresp.py" client --addr 10.93.41.2 --port 40123 --count 20 \
        --think-ms 200 --timeout 20
    wait $SRV
    cap_stop_all
    # answers: the server's fragments; pick by ip.id in order of appearance
    SEL=$(tshark -r "$FULL" -Y "ip.src==10.93.41.2" -T fields -e frame.number -e ip.id -e ip.frag_offset 2>/dev/null |
        awk -F'\t' '{ if (!($2 in n)) { k++; n[$2]=k } ; i[$2]++ ;
             if ((n[$2]==3 || n[$2]==8) && i[$2]==2) print $1; if (n[$2]==13 && i[$2]==3) print $1 }')
    ;;
tcp)
    ip -n $P-rtr link set to-cli mtu 1000
    ip netns exec $P-srv sysctl -qw net.ipv4.ip_no_pmtu_disc=1
    ip netns exec $P-srv ethtool -K eth0 tso off gso off >/dev/null 2>&1
    ip netns exec $P-srv timeout 25 $PY "$TOOLS93/vbapp.py" server --addr 10.93.41.2 --port 5008 --mode send \
        --bytes 60000 --bursts 3 --idle 1.5 --timeout 20 &
    SRV=$!
    wait_listen $P-srv 5008 || exit 1
    cap_start $P-cli eth0 "$FULL" 128 20 "tcp port 5008 or (ip[6:2] & 0x1fff != 0)"
    ip netns exec $P-cli timeout 25 $PY "$TOOLS93/vbapp.py" client --addr 10.93.41.2 --port 5008 --mode recv --timeout 20
    wait $SRV
    cap_stop_all
    # full-size segments = first fragments (MF set, offset 0) from the server, in order
    SEL=$(tshark -r "$FULL" -Y "ip.src==10.93.41.2 && (ip.flags.mf==1 || ip.frag_offset>0)" -T fields \
            -e frame.number -e ip.id -e ip.frag_offset 2>/dev/null |
        awk -F'\t' '{ if (!($2 in n)) { k++; n[$2]=k } ; i[$2]++ ;
             if ((n[$2]==5 || n[$2]==10) && i[$2]==2) print $1; if (n[$2]==20 && i[$2]==1) print $1 }')
    ;;
*) echo "unknown mode $MODE" >&2; exit 2;;
esac
echo "deleting frames:" $SEL
editcap -F pcap "$FULL" "$CUT" $SEL
exit 0
