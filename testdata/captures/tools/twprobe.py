#!/usr/bin/python3
"""twprobe.py MODE IFACE CLIENT_IP SERVER_IP SPORT DPORT CLIENT_PY   (run in the client netns)

1. sniffs while the real kernel client (CLIENT_PY get ... --sport SPORT --ver 1.0 --wait-eof)
   does one HTTP/1.0 exchange; the server closes first, so the SERVER holds TIME_WAIT;
2. reads the last TSval / sequence number the client kernel sent on that connection;
3. about 1 s later sends a crafted SYN from the same port with scapy:
   MODE paws : TSval = last - 100000 (older), random ISN  -> expect TW ACK, then client kernel RST
   MODE ok   : TSval = last + 5000 (newer), ISN = last seq + 1000000 -> expect SYN-ACK; scapy
               completes the handshake, sends GET, ACKs the reply and FINs (the client kernel's
               RSTs for this port are dropped by nft in gen.sh).
Prints the facts as key=value lines."""
import random, subprocess, sys, time
from scapy.all import AsyncSniffer, IP, TCP, Raw, send, sniff, conf
conf.verb = 0
mode, ifc, cip, sip, sport, dport, cpy = sys.argv[1:8]
sport, dport = int(sport), int(dport)
flt = 'tcp and host %s and port %d' % (sip, sport)

def ts_of(p):
    for k, v in p[TCP].options:
        if k == 'Timestamp':
            return v
    return None

sn = AsyncSniffer(iface=ifc, filter=flt, store=True)
sn.start(); time.sleep(0.5)
subprocess.run(['/usr/bin/python3', cpy, 'get', sip, str(dport), '--ver', '1.0',
                '--sport', str(sport), '--wait-eof'], check=True, timeout=20)
time.sleep(0.5)
pk = sn.stop()
mine = [p for p in pk if p[IP].src == cip and p[TCP].sport == sport]
last = mine[-1]
last_ts = ts_of(last)[0]
srv_last = [p for p in pk if p[IP].src == sip][-1]
last_seq = last[TCP].seq
print('first_conn_packets=%d' % len(pk))
print('client_last_tsval=%d client_last_seq=%d server_last_tsval=%d' % (last_ts, last_seq, ts_of(srv_last)[0]))
time.sleep(1.0)

if mode == 'paws':
    tsval = (last_ts - 100000) % 2**32
    isn = random.randrange(2**32)
else:
    tsval = (last_ts + 5000) % 2**32
    isn = (last_seq + 1000000) % 2**32
print('probe_tsval=%d probe_isn=%d' % (tsval, isn))
syn = IP(src=cip, dst=sip) / TCP(sport=sport, dport=dport, flags='S', seq=isn, window=64240,
        options=[('MSS', 1460), ('SAckOK', b''), ('Timestamp', (tsval, 0)), ('NOP', None), ('WScale', 7)])
live = []
sn = AsyncSniffer(iface=ifc, filter=flt, store=False, prn=live.append)
sn.start(); time.sleep(0.3)
send(syn)
for _ in range(100):   # up to 1 s for the server's answer
    if any(p[IP].src == sip for p in live):
        break
    time.sleep(0.01)
time.sleep(0.05 if mode == 'ok' else 1.0)
if mode == 'ok':
    r = [p for p in live if p[IP].src == sip and p[TCP].flags & 0x12 == 0x12]
    if not r:
        print('no SYN-ACK'); sn.stop(); sys.exit(1)
    sa = r[0]
    print('synack_seq=%d synack_ack=%d synack_tsval=%d' % (sa[TCP].seq, sa[TCP].ack, ts_of(sa)[0]))
    rcv = sa[TCP].seq + 1
    seq = isn + 1
    ecr = ts_of(sa)[0]
    def seg(flags, payload=b'', t=1):
        o = [('NOP', None), ('NOP', None), ('Timestamp', (tsval + t, ecr))]
        p = IP(src=cip, dst=sip) / TCP(sport=sport, dport=dport, flags=flags, seq=seq, ack=rcv, window=502, options=o)
        return p / Raw(payload) if payload else p
    send(seg('A', t=1))
    req = b'GET / HTTP/1.0\r\nHost: %s\r\n\r\n' % sip.encode()
    time.sleep(0.1)
    send(seg('PA', req, t=2)); seq += len(req)
    t_end = time.time() + 1.0      # wait (bounded) for the reply + server FIN, then answer at once
    while time.time() < t_end and not any(p[IP].src == sip and p[TCP].flags & 1 for p in live):
        time.sleep(0.005)
    got = [p for p in live if p[IP].src == sip and not p[TCP].flags & 2]
    end = max(((p[TCP].seq - rcv) % 2**32) + len(p[TCP].payload) + (1 if p[TCP].flags & 1 else 0) for p in got)
    fin = any(p[TCP].flags & 1 for p in got)
    data = end - (1 if fin else 0)
    ecr = ts_of(got[-1])[0]
    rcv = (rcv + end) % 2**32
    print('reply_bytes=%d server_fin=%s' % (data, fin))
    send(seg('FA', t=3)); seq += 1
    time.sleep(0.5)
sn.stop()
for p in live:
    print('seen: %s' % p.summary(), 'ts=%s' % (ts_of(p),))
