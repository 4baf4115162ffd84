#!/bin/bash
# tso-sender: server sends 1 MB to the client over one veth pair (MTU 1500,
# MSS 1448 with timestamps). TSO and GSO are ON on the sender (server) eth0
# (veth default; forced on here) and GRO is switched ON on the receiver
# (client) eth0. Captures: sender eth0 -> tso-sender.pcap, receiver eth0 ->
# tso-receiver.pcap (both -s 128).
set -u
OUT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$OUT_DIR/../tools/lib.sh"
P=pdd-tso
trap 'cap_stop_all 2>/dev/null; pair_down $P' EXIT
pair_down $P
pair_up $P || exit 1
ip netns exec $P-srv ethtool -K eth0 tso on gso on sg on tx on
ip netns exec $P-cli ethtool -K eth0 gro on 2>&1 || echo "gro not settable"
ip netns exec $P-srv ethtool -k eth0 | grep -E '^(tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload):'
ip netns exec $P-cli ethtool -k eth0 | grep -E '^(generic-receive-offload|tcp-segmentation-offload):'
ip netns exec $P-srv timeout 20 $PY $APP server --addr 10.88.0.2 --port 5012 --mode send --bytes 1048576 --timeout 15 &
SRV=$!
wait_listen $P-srv 5012 || exit 1
cap_start $P-srv eth0 "$OUT_DIR/tso-sender.pcap" 128 20 tcp port 5012
cap_start $P-cli eth0 "$OUT_DIR/tso-receiver.pcap" 128 20 tcp port 5012
ip netns exec $P-cli timeout 20 $PY $APP client --addr 10.88.0.2 --port 5012 --mode recv --timeout 15
wait $SRV
cap_stop_all
