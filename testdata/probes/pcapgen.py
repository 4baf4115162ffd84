"""Packets and pcap files built byte by byte, for crafted test inputs.

Standard library only, and deterministic: the same calls give the same bytes
on any machine (times are whole microseconds, nothing random). Used by
gen_probes.py here and by ../regress/gen_pmtu_park.py.

Addresses are strings ("10.1.0.1", "fd00:1::1"). Every builder returns the
bytes of one IP packet with correct checksums unless asked otherwise; a
Capture frames them in Ethernet and keeps them with their times.
"""

import gzip
import socket
import struct

MAC_A = bytes.fromhex("020000000001")  # the capturing host
MAC_B = bytes.fromhex("020000000002")  # its gateway

TCP_FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10, "U": 0x20, "E": 0x40, "C": 0x80}


def _addr(a):
    if ":" in a:
        return socket.inet_pton(socket.AF_INET6, a)
    return socket.inet_pton(socket.AF_INET, a)


def is_v6(a):
    return ":" in a


def csum(data):
    """The Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _pseudo(src, dst, proto, length):
    s, d = _addr(src), _addr(dst)
    if len(s) == 16:
        return s + d + struct.pack("!IxxxB", length, proto)
    return s + d + struct.pack("!xBH", proto, length)


# Where each transport keeps its checksum, and whether it covers a pseudo header.
_CSUM_AT = {6: (16, True), 17: (6, True), 1: (2, False), 58: (2, True)}


def with_l4_checksum(src, dst, proto, l4):
    """l4 (a whole transport segment) with its checksum field filled in."""
    if proto not in _CSUM_AT:
        return l4
    at, pseudo = _CSUM_AT[proto]
    if len(l4) < at + 2:
        return l4
    l4 = l4[:at] + b"\0\0" + l4[at + 2:]
    c = csum((_pseudo(src, dst, proto, len(l4)) if pseudo else b"") + l4)
    if proto == 17 and c == 0:
        c = 0xFFFF
    return l4[:at] + struct.pack("!H", c) + l4[at + 2:]


def offloaded(src, dst, proto, l4):
    """l4 as a capture on its sender shows it under checksum offload: the
    checksum field holds only the pseudo header's sum, for the NIC to finish."""
    at, _ = _CSUM_AT[proto]
    part = ~csum(_pseudo(src, dst, proto, len(l4))) & 0xFFFF
    return l4[:at] + struct.pack("!H", part) + l4[at + 2:]


# ------------------------------------------------------------------ IP

def ip4(src, dst, proto, payload, ident=0, df=True, mf=False, frag_off=0, ttl=64,
        total_len=None, l4_checksum=True):
    """An IPv4 packet. frag_off is in bytes (a multiple of 8). With
    l4_checksum the payload is a whole segment whose checksum is computed
    here; fragments pass l4_checksum=False (see fragments4)."""
    if l4_checksum and not mf and frag_off == 0:
        payload = with_l4_checksum(src, dst, proto, payload)
    tl = 20 + len(payload) if total_len is None else total_len
    flags = (0x4000 if df else 0) | (0x2000 if mf else 0) | (frag_off // 8)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tl & 0xFFFF, ident & 0xFFFF, flags, ttl, proto, 0,
                    _addr(src), _addr(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6(src, dst, nh, payload, hlim=64, flow=0, l4_checksum=True, payload_len=None):
    """An IPv6 packet; payload starts with the header nh names."""
    if l4_checksum:
        payload = with_l4_checksum(src, dst, nh, payload)
    pl = len(payload) if payload_len is None else payload_len
    return struct.pack("!IHBB16s16s", 0x60000000 | flow, pl & 0xFFFF, nh, hlim, _addr(src), _addr(dst)) + payload


def ip(src, dst, proto, payload, **kw):
    """IPv4 or IPv6 from the address family (IPv6 takes no IPv4 options)."""
    if is_v6(src):
        return ip6(src, dst, proto, payload, **{k: v for k, v in kw.items() if k in ("hlim", "l4_checksum")})
    return ip4(src, dst, proto, payload, **kw)


def frag6_hdr(nh, off, mf, ident):
    return struct.pack("!BBHI", nh, 0, (off // 8) << 3 | (1 if mf else 0), ident)


def fragments4(src, dst, proto, l4, ident, pieces, df=False, ttl=64):
    """IPv4 fragments of the datagram whose transport segment is l4 (its
    checksum computed over the whole of it). pieces: (offset, length, mf) or
    (offset, length, mf, data) to put other bytes there (overlaps)."""
    l4 = with_l4_checksum(src, dst, proto, l4)
    out = []
    for p in pieces:
        off, ln, mf = p[0], p[1], p[2]
        data = p[3] if len(p) > 3 else l4[off:off + ln]
        out.append(ip4(src, dst, proto, data, ident=ident, df=df, mf=mf, frag_off=off, ttl=ttl, l4_checksum=False))
    return out


def fragments6(src, dst, nh, l4, ident, pieces, hlim=64):
    """IPv6 fragments (a fragment header each), as fragments4."""
    l4 = with_l4_checksum(src, dst, nh, l4)
    out = []
    for p in pieces:
        off, ln, mf = p[0], p[1], p[2]
        data = p[3] if len(p) > 3 else l4[off:off + ln]
        out.append(ip6(src, dst, 44, frag6_hdr(nh, off, mf, ident) + data, hlim=hlim, l4_checksum=False))
    return out


def split(total, size):
    """(offset, length, mf) pieces cutting total bytes in size-byte fragments."""
    out, off = [], 0
    while off < total:
        ln = min(size, total - off)
        out.append((off, ln, off + ln < total))
        off += ln
    return out


# ------------------------------------------------------------ transport

def tcp_opts_syn(mss=1460, wscale=7, sack=True):
    o = struct.pack("!BBH", 2, 4, mss)
    if sack:
        o += b"\x01\x01\x04\x02"
    if wscale is not None:
        o += struct.pack("!BBBB", 1, 3, 3, wscale)
    return o


def tcp_opt_sack(blocks):
    """A SACK option (padded): blocks of (left, right), sequence numbers."""
    body = b"".join(struct.pack("!II", l & 0xFFFFFFFF, r & 0xFFFFFFFF) for l, r in blocks)
    return b"\x01\x01" + struct.pack("!BB", 5, 2 + len(body)) + body


def tcp(sport, dport, seq, ack, flags, payload=b"", win=64240, opts=b""):
    """A TCP segment, checksum left for ip4/ip6. flags: letters of TCP_FLAGS."""
    opts += b"\x01" * (-len(opts) % 4)
    fl = 0
    for ch in flags:
        fl |= TCP_FLAGS[ch]
    off = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, off << 4, fl,
                       win, 0, 0) + opts + payload


def udp(sport, dport, payload=b"", length=None):
    ln = 8 + len(payload) if length is None else length
    return struct.pack("!HHHH", sport, dport, ln & 0xFFFF, 0) + payload


def icmp_error(src, dst, typ, code, quoted, mtu=0, quote=None, rest=None):
    """An ICMP (IPv4) or ICMPv6 error from src to dst quoting the start of
    the packet quoted. quote: how many bytes of it (default: what Linux
    sends, up to a 576-byte ICMP packet for IPv4, 1280 for IPv6). mtu: the
    next-hop MTU of frag-needed / Packet Too Big."""
    v6 = is_v6(src)
    if quote is None:
        quote = (1280 - 48) if v6 else (576 - 28)
    if rest is None:
        rest = struct.pack("!I", mtu) if v6 else struct.pack("!HH", 0, mtu)
    body = struct.pack("!BBH", typ, code, 0) + rest + quoted[:quote]
    if v6:
        return ip6(src, dst, 58, body)
    return ip4(src, dst, 1, body, df=False, ttl=64)


def icmp_echo(src, dst, ident, seqno, payload=b""):
    v6 = is_v6(src)
    body = struct.pack("!BBHHH", 128 if v6 else 8, 0, 0, ident, seqno) + payload
    return ip(src, dst, 58 if v6 else 1, body)


# ------------------------------------------------------------- captures

def _usec(t):
    return int(round(t * 1_000_000))


class Capture:
    """Frames with their times (seconds, kept as whole microseconds). They
    are written in time order (frames of one time in the order added), or
    with in_order in the order added, so that time can go backwards."""

    def __init__(self, snaplen=65535, linktype=1, in_order=False):
        self.snaplen = snaplen
        self.linktype = linktype
        self.in_order = in_order
        self.recs = []  # (usec, frame bytes, wire length)

    def frame(self, t, frame, wirelen=None):
        self.recs.append((_usec(t), frame, len(frame) if wirelen is None else wirelen))

    def add(self, t, pkt, outbound=True):
        """An IP packet in Ethernet; outbound: sent by the capturing host."""
        et = 0x86DD if (pkt[0] >> 4) == 6 else 0x0800
        macs = MAC_B + MAC_A if outbound else MAC_A + MAC_B
        self.frame(t, macs + struct.pack("!H", et) + pkt)
        return pkt

    def cut(self, snaplen):
        """The same capture as taken with a smaller snaplen."""
        c = Capture(snaplen, self.linktype, self.in_order)
        c.recs = [(u, f[:snaplen], w) for u, f, w in self.recs]
        return c

    def to_bytes(self):
        out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, self.snaplen, self.linktype)]
        recs = self.recs if self.in_order else sorted(self.recs, key=lambda r: r[0])
        for u, f, w in recs:
            sec, us = divmod(u, 1_000_000)
            out.append(struct.pack("<IIII", sec & 0xFFFFFFFF, us, len(f), w))
            out.append(f)
        return b"".join(out)

    def write(self, path):
        data = self.to_bytes()
        if path.endswith(".gz"):
            data = gzip.compress(data, compresslevel=9, mtime=0)
        with open(path, "wb") as fh:
            fh.write(data)
        return len(data)


class Tcp:
    """One TCP connection's packets, its sequence numbers followed so that
    callers name only what each segment does. d = 0 client, 1 server."""

    def __init__(self, cap, client, server, cport, sport, isn_c, isn_s, mss=1460):
        self.cap = cap
        self.addr = (client, server)
        self.port = (cport, sport)
        self.nxt = [isn_c & 0xFFFFFFFF, isn_s & 0xFFFFFFFF]
        self.isn = list(self.nxt)
        self.mss = mss
        self.ident = [1, 1]
        self.client_side = True  # the capture is taken at the client

    def packet(self, d, flags, payload=b"", seq=None, ack=None, opts=b"", win=64240, **ipkw):
        """The IP packet without adding it or moving sequence numbers."""
        s = self.nxt[d] if seq is None else seq
        a = (self.nxt[1 - d] if "A" in flags else 0) if ack is None else ack
        seg = tcp(self.port[d], self.port[1 - d], s, a, flags, payload, win, opts)
        self.ident[d] += 1
        return ip(self.addr[d], self.addr[1 - d], 6, seg, ident=self.ident[d] + 1000 * d, **ipkw)

    def send(self, t, d, flags, payload=b"", seq=None, advance=True, **kw):
        """Adds the segment; a new one (seq None) moves the sender's next
        sequence number past its payload, SYN and FIN."""
        p = self.packet(d, flags, payload, seq=seq, **kw)
        if seq is None and advance:
            self.nxt[d] = (self.nxt[d] + len(payload) + ("S" in flags) + ("F" in flags)) & 0xFFFFFFFF
        self.cap.add(t, p, outbound=(d == 0) == self.client_side)
        return p

    def handshake(self, t, rtt=0.010, syn_payload=b""):
        """SYN (with data: TFO, and the SYN-ACK ACKs it), SYN-ACK, ACK."""
        syn = self.send(t, 0, "S", syn_payload, opts=tcp_opts_syn(self.mss))
        self.send(t + rtt, 1, "SA", opts=tcp_opts_syn(self.mss))
        self.send(t + rtt + 0.0001, 0, "A")
        return syn

    def close(self, t, rtt=0.010):
        """FIN from the client, FIN-ACK back, last ACK: both FINs ACKed."""
        self.send(t, 0, "FA")
        self.send(t + rtt, 1, "FA")
        self.send(t + rtt + 0.0001, 0, "A")

    def data(self, t, d, n, rtt=0.010, ack=True):
        """n bytes from d, ACKed by the peer one RTT later; the data packet."""
        p = self.send(t, d, "PA", bytes((i * 7 + d) & 0xFF for i in range(n)))
        if ack:
            self.send(t + rtt, 1 - d, "A")
        return p
