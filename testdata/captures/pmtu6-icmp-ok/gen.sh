#!/bin/bash
# pmtu6-icmp-ok: IPv6 variant of ../pmtu-icmp-ok (same topology, fd88::
# addresses, r2 sends ICMPv6 Packet Too Big MTU 1400). Runs that gen.sh with
# FAM=6 and moves the capture here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
FAM=6 bash "$HERE/../pmtu-icmp-ok/gen.sh" && mv "$HERE/../pmtu-icmp-ok/pmtu6-icmp-ok.pcap" "$HERE/pmtu6-icmp-ok.pcap"
