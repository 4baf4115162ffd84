#!/bin/bash
# admin_prohib.sh MODE CLIENT.pcap [ROUTER.pcap] : a router firewall answers
# the client's SYNs with ICMP "administratively prohibited".
#
# client pdt-ap-cli 10.93.20.2 / fd93::20:2 -- router pdt-ap-rtr -- server
# pdt-ap-srv 10.93.21.2 / fd93::21:2, TCP port 8080 (tcpapp.py server
# reqresp: 40-byte request, 200-byte answer). The client application
# (connect_retry.py) tries to connect 3 times, 1 s apart (a new socket and
# source port each time), and stops at the first success.
# MODE:
#   v4     router: table ip, `tcp dport 8080 reject with icmp type
#          admin-prohibited` (ICMP type 3 code 13) in the forward hook
#   v6     router: table inet, `tcp dport 8080 reject with icmpx type
#          admin-prohibited`; the client connects to fd93::21:2 (ICMPv6 type
#          1 code 1)
#   retry  as v4, but the client host drops incoming ICMP destination-
#          unreachable in its own input hook (the ICMP reaches its eth0 and
#          the capture, never its TCP), like a stack that treats the reject as
#          a soft error: the kernel retransmits the SYN (tcp_syn_retries=3)
#          and the application tries once
#   ok     no reject rule (control twin): the first connect succeeds
# Captures (same run): client eth0 and router to-cli, `tcpdump -s 128`,
# filter `tcp port 8080 or icmp or icmp6[0] < 128` (no ND noise).
set -u
MODE=$1 CPCAP=$2 RPCAP=${3:-}
OUT_DIR=$(cd "$(dirname "$CPCAP")" && pwd)
. "$(dirname "$0")/lib93.sh"
P=pdt-ap
trap 'cap_stop_all 2>/dev/null; n93_down $P >/dev/null' EXIT
n93_down $P >/dev/null
n93_chain $P 20 || exit 1
SADDR=10.93.21.2 TRIES=3
case $MODE in
v4|retry)
    ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdt_fw {
    chain forward_reject {
        type filter hook forward priority 0; policy accept;
        ip daddr 10.93.21.2 tcp dport 8080 counter reject with icmp type admin-prohibited
    }
}
NFT
    ;;
v6)
    SADDR=fd93::21:2
    ip netns exec $P-rtr nft -f - <<'NFT'
table inet pdt_fw {
    chain forward_reject {
        type filter hook forward priority 0; policy accept;
        tcp dport 8080 counter reject with icmpx type admin-prohibited
    }
}
NFT
    ;;
ok) ;;
*) echo "unknown mode $MODE" >&2; exit 2;;
esac
if [ $MODE = retry ]; then
    TRIES=1
    ip netns exec $P-cli sysctl -qw net.ipv4.tcp_syn_retries=3
    ip netns exec $P-cli nft -f - <<'NFT'
table ip pdt_host {
    chain in {
        type filter hook input priority 0; policy accept;
        icmp type destination-unreachable counter drop
    }
}
NFT
fi
ip netns exec $P-srv timeout 25 $PY "$TOOLS93/tcpapp.py" server --addr $SADDR --port 8080 --mode reqresp \
    --parts 40 --resp-size 200 --timeout 20 > /dev/null &
SRV=$!
wait_listen $P-srv 8080 || exit 1
F="tcp port 8080 or icmp or (icmp6 and ip6[40] < 128)"
cap_start $P-cli eth0 "$CPCAP" 128 20 $F
[ -n "$RPCAP" ] && cap_start $P-rtr to-cli "$RPCAP" 128 20 $F
ip netns exec $P-cli timeout 25 $PY "$TOOLS93/connect_retry.py" --addr $SADDR --port 8080 --tries $TRIES \
    --interval 1 --timeout 20
[ $MODE = ok ] && wait $SRV
cap_stop_all
ip netns exec $P-rtr nft list ruleset 2>/dev/null | grep counter
ip netns exec $P-cli nft list ruleset 2>/dev/null | grep counter
kill $SRV 2>/dev/null; wait $SRV 2>/dev/null
exit 0
