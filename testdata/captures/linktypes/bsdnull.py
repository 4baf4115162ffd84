#!/usr/bin/python3
"""bsdnull.py null|loop IN.pcap OUT.pcap [AF_INET6]
Rewrite a classic little-endian pcap with link type ETHERNET (1) or RAW (101) into
BSD loopback encapsulation: each packet gets a 4-byte address-family header instead of
the Ethernet header.  null: LINKTYPE_NULL (0), AF in host (little-endian) byte order;
loop: LINKTYPE_LOOP (108), AF in network (big-endian) byte order.
AF_INET = 2; AF_INET6 = argument (default 24: NetBSD/OpenBSD; FreeBSD 28, Darwin 30)."""
import struct, sys
mode, src, dst = sys.argv[1:4]
af6 = int(sys.argv[4]) if len(sys.argv) > 4 else 24
d = open(src, 'rb').read()
magic, vmaj, vmin, tz, sig, snap, lt = struct.unpack('<IHHiIII', d[:24])
assert magic in (0xa1b2c3d4, 0xa1b23c4d), 'need a little-endian classic pcap'
assert lt in (1, 101), 'link type %d not supported' % lt
out = [struct.pack('<IHHiIII', magic, vmaj, vmin, tz, sig, snap, 0 if mode == 'null' else 108)]
off, n = 24, 0
while off + 16 <= len(d):
    ts, tf, incl, orig = struct.unpack('<IIII', d[off:off + 16])
    pkt = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if lt == 1:
        et = struct.unpack('!H', pkt[12:14])[0]
        pkt, incl, orig = pkt[14:], incl - 14, orig - 14
        v6 = et == 0x86dd
        assert et in (0x0800, 0x86dd), 'non-IP frame'
    else:
        v6 = pkt[0] >> 4 == 6
    af = af6 if v6 else 2
    hdr = struct.pack('<I' if mode == 'null' else '>I', af)
    out.append(struct.pack('<IIII', ts, tf, incl + 4, orig + 4) + hdr + pkt)
    n += 1
open(dst, 'wb').write(b''.join(out))
print('%s: %d packets, link type %s' % (dst, n, 'NULL(0)' if mode == 'null' else 'LOOP(108)'))
