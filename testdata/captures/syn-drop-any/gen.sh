#!/bin/bash
# pcapdoc golden capture: syn-drop-any (handshake detector on SLL2 and IPv6).
# Client netns pdxe-cli (10.99.1.1, fd99::1) -> server netns pdxe-srv (10.99.1.2, fd99::2) port 80
# over one veth. nft in the server drops the first 2 SYNs per address family (quota on the IP
# length), so the client kernel retransmits its SYN twice with the same ISN and the 3rd gets through.
# One HTTP GET over IPv4, then one over IPv6, 1 s apart. Captured with `tcpdump -i any` inside the
# client netns, which gives LINUX_SLL2 frames. Writes syn-drop-any.pcap next to this script.
# Run as root. Bounded: every wait has a timeout; namespaces are deleted on exit.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
PY=/usr/bin/python3
CLI=pdxe-cli SRV=pdxe-srv
PIDS=()
cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  ip netns del $CLI 2>/dev/null; ip netns del $SRV 2>/dev/null
}
trap cleanup EXIT
for n in $CLI $SRV; do ip netns add $n; ip -n $n link set lo up; done
ip link add pdxe-c netns $CLI type veth peer name pdxe-s netns $SRV
for x in "$CLI pdxe-c" "$SRV pdxe-s"; do
  set -- $x
  ip netns exec $1 ethtool -K $2 tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
  ip -n $1 link set $2 up
done
ip -n $CLI addr add 10.99.1.1/24 dev pdxe-c; ip -n $SRV addr add 10.99.1.2/24 dev pdxe-s
ip -n $CLI addr add fd99::1/64 dev pdxe-c nodad; ip -n $SRV addr add fd99::2/64 dev pdxe-s nodad
sleep 1
# SYN = 60 bytes over IPv4, 80 over IPv6 (MSS, SACK, TS, WS): each quota lets two SYNs be dropped.
ip netns exec $SRV nft -f - <<'NFT'
table inet pdxe {
  chain in {
    type filter hook input priority 0; policy accept;
    meta nfproto ipv4 tcp dport 80 tcp flags & (syn|ack) == syn quota until 150 bytes counter drop
    meta nfproto ipv6 tcp dport 80 tcp flags & (syn|ack) == syn quota until 190 bytes counter drop
  }
}
NFT
timeout 40 ip netns exec $SRV $PY - <<'SRVPY' &
import socket, threading
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0); s.bind(("::", 80)); s.listen(16)
s.settimeout(35)
for _ in range(2):
    c, _a = s.accept(); c.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(4096)
        if not d: break
        data += d
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    c.close()
SRVPY
PIDS+=($!)
for _ in $(seq 50); do ip netns exec $SRV ss -Hltn "sport = :80" | grep -q . && break; sleep 0.1; done
ip -n $CLI neigh replace 10.99.1.2 lladdr "$(ip -n $SRV -br link show pdxe-s | awk '{print $3}')" dev pdxe-c nud permanent
ip -n $CLI neigh replace fd99::2 lladdr "$(ip -n $SRV -br link show pdxe-s | awk '{print $3}')" dev pdxe-c nud permanent
ip -n $SRV neigh replace 10.99.1.1 lladdr "$(ip -n $CLI -br link show pdxe-c | awk '{print $3}')" dev pdxe-s nud permanent
ip -n $SRV neigh replace fd99::1 lladdr "$(ip -n $CLI -br link show pdxe-c | awk '{print $3}')" dev pdxe-s nud permanent
OUT=$HERE/syn-drop-any.pcap
ERR=$(mktemp)
ip netns exec $CLI tcpdump -i any -n -U -w "$OUT" tcp 2>"$ERR" &
CAP=$!; PIDS+=($CAP)
for _ in $(seq 50); do grep -q listening "$ERR" && break; sleep 0.1; done
sleep 0.3
for dst in 10.99.1.2 fd99::2; do
  timeout 15 ip netns exec $CLI $PY - "$dst" <<'CLIPY'
import socket, sys
s = socket.create_connection((sys.argv[1], 80), timeout=12)
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
while s.recv(4096): pass
s.close()
CLIPY
  sleep 1
done
sleep 0.5
kill -INT $CAP; wait $CAP 2>/dev/null || true
rm -f "$ERR"
ip netns exec $SRV nft list table inet pdxe | grep counter
echo "wrote $OUT"
