#!/bin/bash
# pmtu-blackhole-probing: ../pmtu-blackhole with server
# net.ipv4.tcp_mtu_probing=1 (runs that gen.sh with PROBING=1).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PROBING=1 bash "$HERE/../pmtu-blackhole/gen.sh"
mv "$HERE/../pmtu-blackhole/pmtu-blackhole-probing.pcap" "$HERE/"
