#!/bin/bash
# Files made from healthy/ for the bad-input cases (needs editcap, capinfos):
#   healthy/server-7200.pcap   server.pcap with its clock 2 hours ahead
#   healthy/client-1.pcap, -2.pcap  client.pcap split in two (a rotation)
#   healthy/server-drift200.pcap, -drift2000.pcap  server.pcap with a clock
#             running 200 and 2000 ppm fast (drift.py)
#   nat/client-nosyn.pcap, server-nosyn.pcap  the nat pair without SYNs and
#             SYN-ACKs (mid-stream connections behind a NAT; needs tshark)
set -eu
cd "$(dirname "$0")/healthy"
editcap -t 7200 server.pcap server-7200.pcap
n=$(capinfos -c -M client.pcap | awk '/Number of packets/{print $NF}')
editcap -r client.pcap client-1.pcap 1-$((n / 2))
editcap -r client.pcap client-2.pcap $((n / 2 + 1))-$n
for ppm in 200 2000; do python3 ../drift.py server.pcap server-drift$ppm.pcap $ppm; done
cd ../nat
for f in client server; do tshark -r $f.pcap -Y '!(tcp.flags.syn==1)' -F pcap -w $f-nosyn.pcap; done
