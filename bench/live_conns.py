#!/usr/bin/env python3
"""Counts what a capture holds, independently of gen_capture and bare_loop.

    live_conns.py FILE.pcap [IDLE_S]

Reads a classic pcap (Ethernet, VLAN tags, IPv4, IPv6) and prints packets,
bytes, TCP connections, UDP flows and the peak number of TCP connections
alive at once. A connection is alive from its first packet to its FIN/RST
exchange (its last packet once it has seen FIN both ways or a RST); one
that never closed is alive to the end of the capture when its last packet
is less than IDLE_S (default 300) before that end (the capture cut it
while open), else to its last packet (it went silent). Its 4-tuple starts
a new connection when a SYN without ACK comes after it closed. Pure
Python, no dependencies: about 1-2 s per 100 MB.
"""
import mmap
import struct
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: live_conns.py FILE.pcap [IDLE_S]")
    idle = float(sys.argv[2]) if len(sys.argv) == 3 else 300.0
    with open(sys.argv[1], "rb") as fh:
        m = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    magic = m[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        sys.exit("not a classic pcap file")
    frac = 1e-9 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1e-6
    linktype = struct.unpack_from(end + "I", m, 20)[0]
    if linktype != 1:
        sys.exit("Ethernet captures only")
    rec = struct.Struct(end + "IIII")
    be16 = struct.Struct(">H")
    n = len(m)
    off = 24
    packets = wire_bytes = ip4 = ip6 = tcp_pkts = udp_pkts = 0
    conns = {}  # key -> [first, last, fins (bit 1: from the lower end, 2: upper), rst, syn]
    done = []  # finished connection records
    udp = set()
    first_ts = last_ts = None
    while off + 16 <= n:
        sec, usec, caplen, wlen = rec.unpack_from(m, off)
        off += 16
        d = off
        off += caplen
        if off > n:
            break
        packets += 1
        wire_bytes += wlen
        ts = sec + usec * frac
        if first_ts is None:
            first_ts = ts
        last_ts = ts
        if caplen < 14:
            continue
        et = be16.unpack_from(m, d + 12)[0]
        p = d + 14
        while et in (0x8100, 0x88A8) and p + 4 <= off:
            et = be16.unpack_from(m, p + 2)[0]
            p += 4
        if et == 0x0800 and p + 20 <= off:
            ip4 += 1
            ihl = (m[p] & 15) * 4
            proto = m[p + 9]
            if be16.unpack_from(m, p + 6)[0] & 0x1FFF:
                continue  # a later fragment: no ports
            src, dst = m[p + 12:p + 16], m[p + 16:p + 20]
            l4 = p + ihl
        elif et == 0x86DD and p + 40 <= off:
            ip6 += 1
            proto = m[p + 6]
            src, dst = m[p + 8:p + 24], m[p + 24:p + 40]
            l4 = p + 40
        else:
            continue
        if l4 + 4 > off:
            continue
        sp, dp = m[l4:l4 + 2], m[l4 + 2:l4 + 4]
        a, b = src + sp, dst + dp
        lower_sends = a < b
        key = (a, b) if lower_sends else (b, a)
        if proto == 17:
            udp_pkts += 1
            udp.add(key)
            continue
        if proto != 6 or l4 + 14 > off:
            continue
        tcp_pkts += 1
        fl = m[l4 + 13]
        c = conns.get(key)
        if c is not None and (c[3] or c[2] == 3) and (fl & 0x12) == 0x02:
            done.append(c)  # a new connection on an ended 4-tuple
            c = None
        if c is None:
            c = [ts, ts, 0, 0, 0]
            conns[key] = c
        c[1] = ts
        if fl & 0x02:
            c[4] = 1
        if fl & 0x04:
            c[3] = 1
        if fl & 0x01:
            c[2] |= 1 if lower_sends else 2
    m.close()
    done.extend(conns.values())

    events = []
    open_at_end = 0
    for c in done:
        events.append((c[0], 0))
        stop = c[1]
        if not (c[3] or c[2] == 3) and last_ts - c[1] < idle:
            stop = last_ts
            open_at_end += 1
        events.append((stop, 1))
    events.sort()
    alive = peak = 0
    peak_ts = first_ts or 0
    for t, kind in events:
        if kind == 0:
            alive += 1
            if alive > peak:
                peak, peak_ts = alive, t
        else:
            alive -= 1
    fin2 = sum(1 for c in done if c[2] == 3 and not c[3])
    rst = sum(1 for c in done if c[3])
    syn = sum(1 for c in done if c[4])
    dur = (last_ts - first_ts) if first_ts is not None else 0
    print(f"file: {sys.argv[1]}")
    print(f"packets {packets}  wire bytes {wire_bytes}  duration {dur:.1f} s  IPv4 {ip4}  IPv6 {ip6}")
    print(f"TCP packets {tcp_pkts}  connections {len(done)} ({syn} with a SYN, {fin2} closed by FIN both ways, "
          f"{rst} reset, {len(done) - fin2 - rst} neither)")
    print(f"UDP packets {udp_pkts}  flows (5-tuples) {len(udp)}")
    print(f"peak TCP connections alive at once: {peak} at {peak_ts - (first_ts or 0):.1f} s "
          f"({open_at_end} open at the end: never closed, idle < {idle:.0f} s there)")


if __name__ == "__main__":
    main()
