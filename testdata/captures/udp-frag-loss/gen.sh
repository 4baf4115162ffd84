#!/bin/bash
# udp-frag-loss: ../udp-frag with LOSS=1 (2nd fragment of datagrams 1,4,7,10
# of each family dropped in r1). Writes udp-frag-loss.pcap (sender side) and
# udp-frag-loss-receiver.pcap (receiver side) here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LOSS=1 bash "$HERE/../udp-frag/gen.sh"
mv "$HERE/../udp-frag/udp-frag-loss.pcap" "$HERE/../udp-frag/udp-frag-loss-receiver.pcap" "$HERE/"
