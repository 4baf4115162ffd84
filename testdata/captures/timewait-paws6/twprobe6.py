#!/usr/bin/python3
"""twprobe6.py IFACE CLIENT_IP6 SERVER_IP6 SPORT DPORT CLIENT_PY   (run in the client netns)
1. sniffs while the kernel client (CLIENT_PY get ... --sport SPORT --ver 1.0 --wait-eof) does one
   HTTP/1.0 exchange; the server closes first, so the SERVER holds TIME_WAIT;
2. ~1 s later sends, with scapy, a SYN from the same port with TSval = last client TSval - 100000
   and a random ISN (expect the server's TIME_WAIT ACK, then the client kernel's RST)."""
import random, subprocess, sys, time
from scapy.all import AsyncSniffer, IPv6, TCP, send, conf
conf.verb = 0
ifc, cip, sip, sport, dport, cpy = sys.argv[1:7]
sport, dport = int(sport), int(dport)
flt = 'tcp and host %s and port %d' % (sip, sport)
def ts_of(p):
    for k, v in p[TCP].options:
        if k == 'Timestamp':
            return v
sn = AsyncSniffer(iface=ifc, filter=flt, store=True)
sn.start(); time.sleep(0.5)
subprocess.run(['/usr/bin/python3', cpy, 'get', sip, str(dport), '--ver', '1.0', '--sport', str(sport),
                '--wait-eof'], check=True, timeout=20)
time.sleep(0.5)
pk = sn.stop()
mine = [p for p in pk if p[IPv6].src == cip and p[TCP].sport == sport]
last_ts = ts_of(mine[-1])[0]
print('client_last_tsval=%d' % last_ts)
time.sleep(1.0)
tsval = (last_ts - 100000) % 2**32
isn = random.randrange(2**32)
print('probe_tsval=%d probe_isn=%d' % (tsval, isn))
syn = IPv6(src=cip, dst=sip) / TCP(sport=sport, dport=dport, flags='S', seq=isn, window=64800,
        options=[('MSS', 1440), ('SAckOK', b''), ('Timestamp', (tsval, 0)), ('NOP', None), ('WScale', 7)])
send(syn)
time.sleep(1.0)
