#!/bin/bash
# random-loss: server sends 2 MB (2097152 B) to the client through the delay
# router (10 ms one way, RTT 20 ms). nft in the router drops ~3% of the data
# packets going from server to client (forward hook, after the delay stage:
# iifname tun0 oifname to-cli, tcp sport 5007, length > 200,
# numgen random mod 100 < 3). Default buffers, cubic, SACK on.
# TSO/GSO off on the server eth0. Captures (-s 96, keeps SACK blocks):
# sender (server eth0) -> random-loss.pcap, receiver (client eth0) ->
# random-loss-client.pcap, same run.
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-rloss
trap 'cap_stop_all 2>/dev/null; dr_down $P >/dev/null' EXIT
dr_down $P >/dev/null
dr_up $P 10 40 || exit 1
ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdd_loss {
    chain fwd_loss {
        type filter hook forward priority 0; policy accept;
        iifname "tun0" oifname "to-cli" ip saddr 10.88.2.2 tcp sport 5007 meta length > 200 numgen random mod 100 < 3 counter drop
    }
}
NFT
ip netns exec $P-srv ethtool -K eth0 tso off gso off
ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.88.2.2 --port 5007 --mode send --bytes 2097152 --timeout 30 &
SRV=$!
wait_listen $P-srv 5007 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/random-loss.pcap" 96 35 tcp port 5007
cap_start $P-cli eth0 "$OUT_DIR/random-loss-client.pcap" 96 35 tcp port 5007
ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.88.2.2 --port 5007 --mode recv --timeout 30
wait $SRV
cap_stop_all
ip netns exec $P-rtr nft list ruleset | grep counter
