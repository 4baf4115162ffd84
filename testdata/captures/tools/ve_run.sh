#!/bin/bash
# ve_run.sh SCENARIO OUTDIR: the kernel-settings validation captures (namespaces pdvE-*,
# 10.65.x.x / fd65::). Each golden folder's gen.sh calls it; see the folder READMEs.
# Scenarios: tsoff twnots nosack nows ecn ecnce mtu6 syn1. Run as root.
set -u
T=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. $T/ve_lib.sh
S=$1; OUT_DIR=$2; mkdir -p $OUT_DIR
case $S in
tsoff)  # (1) client tcp_timestamps=0, SYN-ACKs dropped at the client for 2.5 s
  P=pdvE-ts; trap 'cap_stop_all 2>/dev/null; ve_pair_down $P' EXIT
  ve_pair_down $P; ve_pair_up $P || exit 1
  for n in cli srv; do ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-cli sysctl -qw net.ipv4.tcp_timestamps=0
  ip netns exec $P-cli nft -f - <<'NFT'
table inet pdve {
 chain pre {
  type filter hook prerouting priority -300; policy accept;
  tcp sport 5065 tcp flags & (syn|ack) == syn|ack counter drop
 }
}
NFT
  ip netns exec $P-srv timeout 20 $PY $APP server --addr 10.65.0.2 --port 5065 --mode send --bytes 20000 --timeout 15 &
  wait_listen $P-srv 5065 || exit 1
  cap_start $P-cli eth0 $OUT_DIR/tsoff-client.pcap 128 20 tcp port 5065
  cap_start $P-srv eth0 $OUT_DIR/tsoff-server.pcap 128 20 tcp port 5065
  ( sleep 2.5; ip netns exec $P-cli nft delete table inet pdve ) &
  ip netns exec $P-cli timeout 15 $PY $APP client --addr 10.65.0.2 --port 5065 --mode recv --timeout 12
  wait; cap_stop_all ;;
nosack) # (2) sack off both sides, 10 ms one-way delay, ~3% random drops server->client
  P=pdvE-sk; trap 'cap_stop_all 2>/dev/null; ve_dr_down $P' EXIT
  ve_dr_down $P; ve_dr_up $P 5 40 || exit 1
  for n in cli srv; do ip netns exec $P-$n sysctl -qw net.ipv4.tcp_sack=0; ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdve {
 chain fwdrop {
  type filter hook forward priority 0; policy accept;
  iifname "tun0" oifname "to-cli" tcp sport 5066 meta length > 200 numgen random mod 100 < 3 counter drop
 }
}
NFT
  ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.65.2.2 --port 5066 --mode send --bytes 1048576 --timeout 30 &
  wait_listen $P-srv 5066 || exit 1
  cap_start $P-srv eth0 $OUT_DIR/nosack-sender.pcap 96 35 tcp port 5066
  cap_start $P-cli eth0 $OUT_DIR/nosack-receiver.pcap 96 35 tcp port 5066
  ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.65.2.2 --port 5066 --mode recv --timeout 30
  sleep 1; cap_stop_all; ip netns exec $P-rtr nft list ruleset | grep counter ;;
nows)  # (3) window scaling off both, RTT 30 ms, capture on receiver
  P=pdvE-ws; trap 'cap_stop_all 2>/dev/null; ve_dr_down $P' EXIT
  ve_dr_down $P; ve_dr_up $P 15 40 || exit 1
  for n in cli srv; do ip netns exec $P-$n sysctl -qw net.ipv4.tcp_window_scaling=0; ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.65.2.2 --port 5067 --mode send --bytes 1048576 --timeout 30 &
  wait_listen $P-srv 5067 || exit 1
  cap_start $P-cli eth0 $OUT_DIR/nows-receiver.pcap 80 35 tcp port 5067
  ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.65.2.2 --port 5067 --mode recv --timeout 30
  sleep 1; cap_stop_all ;;
ecn)   # (4) ECN on both, healthy bulk, 10 ms one-way
  P=pdvE-ec; trap 'cap_stop_all 2>/dev/null; ve_dr_down $P' EXIT
  ve_dr_down $P; ve_dr_up $P 10 40 || exit 1
  for n in cli srv; do ip netns exec $P-$n sysctl -qw net.ipv4.tcp_ecn=1; ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.65.2.2 --port 5068 --mode send --bytes 1048576 --timeout 30 &
  wait_listen $P-srv 5068 || exit 1
  cap_start $P-srv eth0 $OUT_DIR/ecn-sender.pcap 96 35 tcp port 5068
  ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.65.2.2 --port 5068 --mode recv --timeout 30
  sleep 1; cap_stop_all ;;
mtu6)  # (5) MTU 1280 both ends, IPv6 healthy
  P=pdvE-mt; trap 'cap_stop_all 2>/dev/null; ve_pair_down $P' EXIT
  ve_pair_down $P; ve_pair_up $P || exit 1
  for n in cli srv; do ip -n $P-$n link set eth0 mtu 1280; ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-srv timeout 20 $PY $APP server --addr fd65::2 --port 5069 --mode send --bytes 524288 --timeout 15 &
  wait_listen $P-srv 5069 || exit 1
  cap_start $P-cli eth0 $OUT_DIR/mtu1280-v6-client.pcap 96 20 tcp port 5069
  ip netns exec $P-cli timeout 15 $PY $APP client --addr fd65::2 --port 5069 --mode recv --timeout 12
  sleep 0.5; cap_stop_all ;;
syn1)  # (6) tcp_syn_retries=1, all SYNs dropped, -i any on the client
  P=pdvE-sy; trap 'cap_stop_all 2>/dev/null; ve_pair_down $P' EXIT
  ve_pair_down $P; ve_pair_up $P || exit 1
  ip netns exec $P-cli sysctl -qw net.ipv4.tcp_syn_retries=1
  ip netns exec $P-srv nft -f - <<'NFT'
table inet pdve {
 chain pre {
  type filter hook prerouting priority -300; policy accept;
  tcp dport 5070 tcp flags & (syn|ack) == syn counter drop
 }
}
NFT
  ip netns exec $P-srv timeout 20 $PY $APP server --addr 10.65.0.2 --port 5070 --mode send --bytes 1000 --timeout 12 &
  wait_listen $P-srv 5070 || exit 1
  cap_start $P-cli any $OUT_DIR/syn1-any.pcap 96 20 tcp port 5070
  /usr/bin/time -f "client %e s" ip netns exec $P-cli timeout 15 $PY $APP client --addr 10.65.0.2 --port 5070 --mode recv --timeout 12
  cap_stop_all; ip netns exec $P-srv nft list ruleset | grep counter; kill %1 2>/dev/null; wait ;;
ecnce) # (4b) ECN on both, the router marks ~2% of the data CE (no drops), cubic
  P=pdvE-ce; trap 'cap_stop_all 2>/dev/null; ve_dr_down $P' EXIT
  ve_dr_down $P; ve_dr_up $P 10 40 || exit 1
  for n in cli srv; do ip netns exec $P-$n sysctl -qw net.ipv4.tcp_ecn=1; ip netns exec $P-$n ethtool -K eth0 tso off gso off gro off >/dev/null 2>&1; done
  ip netns exec $P-srv sysctl -qw net.ipv4.tcp_congestion_control=reno 2>/dev/null
  ip netns exec $P-rtr nft -f - <<'NFT'
table ip pdve {
 chain fwmark {
  type filter hook forward priority 0; policy accept;
  iifname "tun0" oifname "to-cli" tcp sport 5071 meta length > 200 ip ecn ect0 numgen random mod 100 < 2 counter ip ecn set ce
 }
}
NFT
  ip netns exec $P-srv timeout 35 $PY $APP server --addr 10.65.2.2 --port 5071 --mode send --bytes 1048576 --timeout 30 &
  wait_listen $P-srv 5071 || exit 1
  cap_start $P-srv eth0 $OUT_DIR/ecn-ce-sender.pcap 96 35 tcp port 5071
  cap_start $P-cli eth0 $OUT_DIR/ecn-ce-receiver.pcap 96 35 tcp port 5071
  ip netns exec $P-cli timeout 35 $PY $APP client --addr 10.65.2.2 --port 5071 --mode recv --timeout 30
  sleep 1; cap_stop_all; ip netns exec $P-rtr nft list ruleset | grep counter ;;
twnots) # (1b) client tcp_timestamps=0; the server closes first, the client reuses its port 1 s later
  P=pdvE-tw; trap 'cap_stop_all 2>/dev/null; ve_pair_down $P' EXIT
  ve_pair_down $P; ve_pair_up $P || exit 1
  ip netns exec $P-cli sysctl -qw net.ipv4.tcp_timestamps=0
  ip netns exec $P-srv timeout 20 $PY $T/ve_twreuse.py server &
  wait_listen $P-srv 5072 || exit 1
  cap_start $P-cli eth0 $OUT_DIR/tw-nots-client.pcap 128 20 tcp port 5072
  ip netns exec $P-cli timeout 15 $PY $T/ve_twreuse.py client
  wait; ip netns exec $P-srv ss -tan state time-wait; cap_stop_all ;;
esac
