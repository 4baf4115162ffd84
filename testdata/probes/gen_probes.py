#!/usr/bin/env python3
"""Writes the probe captures (README.md here): one small crafted capture per
flow state pcapdoc's engine must survive, and the `options` file that says
which probes run with extra pcapdoc options.

Usage: gen_probes.py [OUTDIR]   (default: this directory)
       gen_probes.py --list     (name, options and what each probe exercises)

Deterministic: no randomness, whole-microsecond times; the same bytes on
every run (.gz files: the same bytes once decompressed).
"""

import os
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcapgen as g  # noqa: E402

PROBES = []  # (file name, options, description, builder)


def probe(name, desc, options=""):
    def reg(fn):
        PROBES.append((name, options, desc, fn))
        return fn
    return reg


class Fam:
    """Addresses and sizes of one IP version. C is the capturing host
    (client), S its peer (server), R a router on the path, T a host the
    ticker flows go to."""

    def __init__(self, v6):
        self.v6 = v6
        if v6:
            self.C, self.S, self.S2, self.R, self.T = "fd00:1::1", "fd00:2::1", "fd00:2::2", "fd00:9::fe", "fd00:3::9"
            self.frag = 1232  # fragment payload under a 1280 MTU
            self.small, self.big = 600, 1400  # pmtu follows flows over 1280
        else:
            self.C, self.S, self.S2, self.R, self.T = "10.1.0.1", "10.2.0.1", "10.2.0.2", "10.9.0.254", "10.3.0.9"
            self.frag = 1480
            self.small, self.big = 560, 1400  # 560: over pmtu's 552, not pinned (576)
        self.hdr = 40 if v6 else 20
        self.ticker_port = 33000

    def ip(self, src, dst, proto, payload, **kw):
        return g.ip(src, dst, proto, payload, **kw)

    def frags(self, src, dst, proto, l4, ident, pieces):
        if self.v6:
            return g.fragments6(src, dst, proto, l4, ident, pieces)
        return g.fragments4(src, dst, proto, l4, ident, pieces)


def ntop(pkt, dst=False):
    """Source (or destination) address of an IP packet's bytes."""
    if pkt[0] >> 4 == 6:
        b = pkt[24:40] if dst else pkt[8:24]
        return socket.inet_ntop(socket.AF_INET6, b)
    b = pkt[16:20] if dst else pkt[12:16]
    return socket.inet_ntop(socket.AF_INET, b)


def ticks(c, fam, times):
    """Small UDP packets, a new flow each, from the host to T: they move
    capture time on (flow expiry and parking run on packets) and make new
    flow blocks in between."""
    for t in times:
        fam.ticker_port += 1
        c.add(t, g.ip(fam.C, fam.T, 17, g.udp(fam.ticker_port, 9, b"tick")))


def payload(n, seed=0):
    return bytes((i * 13 + seed) & 0xFF for i in range(max(n, 0)))


# ICMP errors by kind: (v4 type, code), (v6 type, code), sent by the router
# (True) or by the quoted packet's destination (False).
KINDS = {
    "fragneeded": ((3, 4), (2, 0), True),
    "portunreach": ((3, 3), (1, 4), False),
    "adminprohib": ((3, 13), (1, 1), True),
    "reasmtimeout": ((11, 1), (3, 1), False),
}


def icmp_for(fam, kind, quoted, quote=None):
    (t4, c4), (t6, c6), by_router = KINDS[kind]
    typ, code = (t6, c6) if fam.v6 else (t4, c4)
    src = fam.R if by_router else ntop(quoted, dst=True)
    mtu = 0
    if kind == "fragneeded":
        mtu = 1280 if fam.v6 else (len(quoted) - 8 if len(quoted) < 1500 else 1400)
    return g.icmp_error(src, ntop(quoted), typ, code, quoted, mtu=mtu, quote=quote)


# ------------------------------------------------------------ subjects
# The flows an ICMP error will quote: a small one (v4: 560 bytes, which pmtu
# follows and parking does not pin), a big one, and one whose packet went
# out in fragments (the error quotes the first).

def tcp_subjects(c, fam, t, base_port, close=None):
    """Three TCP connections with data; close: None, "fin" or "rst"."""
    quotes = []
    for i, size in enumerate((fam.small, fam.big, None)):
        conv = g.Tcp(c, fam.C, fam.S, base_port + i, 443, 0x10000000 * (i + 1), 0x70000000 + i)
        conv.handshake(t + i * 0.01)
        if size:
            quotes.append(conv.data(t + i * 0.01 + 0.02, 0, size - fam.hdr - 20))
        else:
            seg = g.tcp(conv.port[0], 443, conv.nxt[0], conv.nxt[1], "PA", payload(2 * fam.frag + 200, i))
            conv.nxt[0] = (conv.nxt[0] + len(seg) - 20) & 0xFFFFFFFF
            fr = fam.frags(fam.C, fam.S, 6, seg, 0x3000 + i, g.split(len(seg), fam.frag))
            for k, f in enumerate(fr):
                c.add(t + i * 0.01 + 0.02 + k * 0.0001, f)
            conv.send(t + i * 0.01 + 0.03, 1, "A")
            quotes.append(fr[0])
        if close == "fin":
            conv.close(t + 0.2 + i * 0.01)
        elif close == "rst":
            conv.send(t + 0.2 + i * 0.01, 0, "RA")
    return quotes


def udp_subjects(c, fam, t, base_port):
    quotes = []
    for i, size in enumerate((fam.small, fam.big, None)):
        if size:
            quotes.append(c.add(t + i * 0.01, g.ip(fam.C, fam.S, 17, g.udp(base_port + i, 9000, payload(size - fam.hdr - 8, i)))))
        else:
            dg = g.udp(base_port + i, 9000, payload(2 * fam.frag + 300, i))
            fr = fam.frags(fam.C, fam.S, 17, dg, 0x4000 + i, g.split(len(dg), fam.frag))
            for k, f in enumerate(fr):
                c.add(t + i * 0.01 + k * 0.0001, f)
            quotes.append(fr[0])
    return quotes


def state_ended(c, fam, close):
    q = tcp_subjects(c, fam, 1.0, 41000, close=close)
    ticks(c, fam, (5.0, 15.0, 30.0, 59.0))
    return q, 60.0


def state_expired_udp(c, fam):
    q = udp_subjects(c, fam, 1.0, 42000)
    ticks(c, fam, (2.5, 60.0, 121.5, 125.0))
    return q, 200.0


def state_expired_tcp(c, fam):
    q = tcp_subjects(c, fam, 1.0, 43000)
    ticks(c, fam, (2.5, 100.0, 902.0, 950.0))
    return q, 1000.0


def state_evicted(c, fam):
    """Six flows, then 24 newer ones: with --max-flows 16 the six are
    finalized early (evicted) before the errors come."""
    q = tcp_subjects(c, fam, 1.0, 44000) + udp_subjects(c, fam, 1.1, 44100)
    for i in range(24):
        c.add(1.2 + i * 0.005, g.ip(fam.C, fam.S2, 17, g.udp(45000 + i, 7000 + i, b"filler")))
    return q, 1.4


def state_parked(c, fam):
    """Flows waiting, as parking takes them: UDP flows, a SYN with data
    (TFO) never answered, a handshake never completed."""
    q = udp_subjects(c, fam, 1.0, 46000)
    for i, size in enumerate((fam.small, fam.big)):
        conv = g.Tcp(c, fam.C, fam.S, 46100 + i, 443, 0x20000000 + i, 0x60000000 + i)
        q.append(conv.send(1.1 + i * 0.01, 0, "S", payload(size - fam.hdr - 32, i), opts=g.tcp_opts_syn()))
    conv = g.Tcp(c, fam.C, fam.S, 46110, 443, 0x21000000, 0x61000000)
    q.append(conv.send(1.2, 0, "S", payload(fam.small - fam.hdr - 32, 5), opts=g.tcp_opts_syn()))
    conv.send(1.21, 1, "SA", opts=g.tcp_opts_syn())
    ticks(c, fam, (2.2, 3.4))
    return q, 3.5


def state_packed(c, fam):
    """Established TCP flows with data both ways, then silent for 3 s: the
    engine packs their detector blocks after a second of silence."""
    q = tcp_subjects(c, fam, 1.0, 46200)
    for i in range(2):
        conv = g.Tcp(c, fam.C, fam.S, 46210 + i, 443, 0x22000000 + i, 0x62000000 + i)
        conv.handshake(1.1 + i * 0.01)
        q.append(conv.data(1.15 + i * 0.01, 0, (fam.small, fam.big)[i] - fam.hdr - 20))
        conv.data(1.2 + i * 0.01, 1, 3000)
        conv.send(1.25 + i * 0.01, 0, "A")
    ticks(c, fam, (2.5, 4.0))
    return q, 4.1


def state_never(c, fam):
    """Quoted packets of flows the capture never saw."""
    ticks(c, fam, (1.0, 2.5))
    q = []
    for i, size in enumerate((fam.small, fam.big)):
        q.append(g.ip(fam.C, fam.S, 6, g.tcp(47000 + i, 443, 0x30000000, 0x40000000, "PA", payload(size - fam.hdr - 20, i))))
        q.append(g.ip(fam.C, fam.S, 17, g.udp(47100 + i, 9000, payload(size - fam.hdr - 8, i))))
    dg = g.udp(47200, 9000, payload(2 * fam.frag + 300))
    q.append(fam.frags(fam.C, fam.S, 17, dg, 0x4700, g.split(len(dg), fam.frag))[0])
    return q, 3.0


STATES = {
    "ended-fin": (lambda c, f: state_ended(c, f, "fin"), "TCP flows closed by FIN/FIN/ACK 59 s before"),
    "ended-rst": (lambda c, f: state_ended(c, f, "rst"), "TCP flows reset 59 s before"),
    "expired-udp": (state_expired_udp, "UDP flows idle 199 s (past the 120 s timeout)"),
    "expired-tcp": (state_expired_tcp, "established TCP flows idle 999 s (past the 900 s timeout)"),
    "evicted": (state_evicted, "TCP and UDP flows evicted by 24 newer flows (--max-flows 16)"),
    "parked": (state_parked, "UDP flows, unanswered SYNs with data and a half-open handshake idle 2.3 s (their eager "
               "blocks packed)"),
    "packed": (state_packed, "established TCP flows with data both ways idle 3 s (all their blocks packed)"),
    "never": (state_never, "flows never seen (fabricated quotes)"),
}
KIND_TEXT = {
    "fragneeded": "ICMP frag-needed",
    "portunreach": "ICMP port unreachable",
    "adminprohib": "ICMP administratively prohibited",
    "reasmtimeout": "ICMP time exceeded (reassembly)",
}


def icmp_probe(kind, state):
    setup, _ = STATES[state]

    def build():
        c = g.Capture()
        fam = Fam(False)
        quotes, t = setup(c, fam)
        for i, q in enumerate(quotes):
            c.add(t + i * 0.01, icmp_for(fam, kind, q), outbound=False)
        # the quoted packets again (their tuples come back), then errors
        # quoting only their first 28 bytes (RFC 792)
        t2 = t + 0.5
        for i, q in enumerate(quotes):
            c.add(t2 + i * 0.01, q)
        for i, q in enumerate(quotes):
            c.add(t2 + 0.1 + i * 0.01, icmp_for(fam, kind, q, quote=28), outbound=False)
        return c
    return build


def icmp6_probe(state):
    setup, _ = STATES[state]

    def build():
        c = g.Capture()
        fam = Fam(True)
        quotes, t = setup(c, fam)
        for k, kind in enumerate(KINDS):
            for i, q in enumerate(quotes):
                c.add(t + k * 0.1 + i * 0.01, icmp_for(fam, kind, q), outbound=False)
        return c
    return build


def options_for(state):
    return "--max-flows 16" if state == "evicted" else ""


for _state, (_fn, _text) in STATES.items():
    for _kind in KINDS:
        probe("icmp-%s-%s.pcap" % (_kind, _state), "%s for %s" % (KIND_TEXT[_kind], _text),
              options_for(_state))(icmp_probe(_kind, _state))
for _state, (_fn, _text) in STATES.items():
    probe("icmp6-%s.pcap" % _state, "ICMPv6 Packet Too Big, port unreachable, admin prohibited and reassembly "
          "time exceeded for %s" % _text, options_for(_state))(icmp6_probe(_state))


# ----------------------------------------------------------- fragments

def frag_after_end(fam):
    c = g.Capture()
    conv = g.Tcp(c, fam.C, fam.S, 51000, 443, 1000, 5000)
    conv.handshake(1.0)
    conv.data(1.05, 0, 100)
    conv.close(1.2)
    c.add(1.3, g.ip(fam.C, fam.S, 17, g.udp(51100, 9000, payload(100))))
    ticks(c, fam, (5.0, 15.0, 25.0))
    # a whole segment of the closed connection, in fragments
    seg = g.tcp(51000, 443, conv.nxt[0], conv.nxt[1], "PA", payload(2 * fam.frag + 100))
    for k, f in enumerate(fam.frags(fam.C, fam.S, 6, seg, 0x5101, g.split(len(seg), fam.frag))):
        c.add(30.0 + k * 0.0001, f)
    # a first fragment alone, and a later fragment alone
    first = fam.frags(fam.C, fam.S, 6, seg, 0x5102, g.split(len(seg), fam.frag))[0]
    c.add(31.0, first)
    c.add(31.1, fam.frags(fam.C, fam.S, 6, seg, 0x5103, g.split(len(seg), fam.frag))[1])
    ticks(c, fam, (60.0, 121.5))
    # the expired UDP flow's tuple, fragmented
    dg = g.udp(51100, 9000, payload(2 * fam.frag + 50))
    ufr = fam.frags(fam.C, fam.S, 17, dg, 0x5104, g.split(len(dg), fam.frag))
    for k, f in enumerate(ufr):
        c.add(130.0 + k * 0.0001, f)
    c.add(131.0, fam.frags(fam.C, fam.S, 17, dg, 0x5105, g.split(len(dg), fam.frag))[0])
    # the receiver gives up on both, and a router complains about one
    c.add(162.0, icmp_for(fam, "reasmtimeout", first), outbound=False)
    c.add(162.1, icmp_for(fam, "reasmtimeout", ufr[0]), outbound=False)
    c.add(162.2, icmp_for(fam, "fragneeded", first), outbound=False)
    return c


def frag_before_first(fam):
    c = g.Capture()
    f = fam.frag
    dg = g.udp(52000, 9000, payload(3 * f + 100))
    pieces = g.split(len(dg), f)
    # last, middles, then the first
    fr = fam.frags(fam.C, fam.S, 17, dg, 0x5201, pieces)
    for k, p in enumerate(reversed(fr)):
        c.add(1.0 + k * 0.001, p)
    # later fragments whose first never comes
    fr = fam.frags(fam.C, fam.S, 17, g.udp(52001, 9000, payload(3 * f + 100)), 0x5202, pieces)
    for k, p in enumerate(fr[1:]):
        c.add(2.0 + k * 0.001, p)
    never_first = fr[0]
    # the first 37 s after the rest (past the 30 s reassembly timeout)
    fr = fam.frags(fam.C, fam.S, 17, g.udp(52002, 9000, payload(3 * f + 100)), 0x5203, pieces)
    for k, p in enumerate(fr[1:]):
        c.add(3.0 + k * 0.001, p)
    late_first = fr[0]
    # a TCP connection that ends, then a segment of it in fragments, last first
    conv = g.Tcp(c, fam.C, fam.S, 52100, 443, 7000, 9000)
    conv.handshake(4.0)
    conv.close(4.1)
    seg = g.tcp(52100, 443, conv.nxt[0], conv.nxt[1], "PA", payload(2 * f + 100))
    for k, p in enumerate(reversed(fam.frags(fam.C, fam.S, 6, seg, 0x5204, g.split(len(seg), f)))):
        c.add(20.0 + k * 0.001, p)
    ticks(c, fam, (10.0, 30.0))
    c.add(40.0, late_first)
    c.add(45.0, icmp_for(fam, "reasmtimeout", never_first), outbound=False)
    c.add(45.1, icmp_for(fam, "reasmtimeout", late_first), outbound=False)
    return c


def frag_overlap(fam):
    c = g.Capture()
    t = [1.0]

    def put(pkts):
        for p in pkts:
            c.add(t[0], p)
            t[0] += 0.001
        t[0] += 0.1

    f = fam.frag
    dg = g.udp(53000, 9000, payload(3000))
    n = len(dg)
    fr = lambda ident, pieces, l4=dg, proto=17: fam.frags(fam.C, fam.S, proto, l4, ident, pieces)  # noqa: E731
    # the second overlaps the first's tail
    put(fr(0x5301, [(0, f, True), (f - 80, n - f + 80, False)]))
    # the first twice, the second copy with other bytes and other ports
    other = g.udp(53999, 9999, payload(3000, 7))
    put(fr(0x5302, [(0, f, True), (0, f, True, other[:f]), (f, n - f, False)]))
    # one fragment inside another
    put(fr(0x5303, [(0, 2000, True), (8, 64, True, b"\xee" * 64), (2000, n - 2000, False)]))
    # two last fragments that end in different places
    put(fr(0x5304, [(0, f, True), (f, 520, False), (f, 1000, False)]))
    # data past the end a last fragment set
    put(fr(0x5305, [(0, f, True), (f, 200, False), (3000, 100, True, payload(100))]))
    # past 65535 bytes (offset 65528)
    put(fr(0x5306, [(0, f, True), (65528, 1000, False, payload(1000))]))
    # a later fragment that ends before the first's end (teardrop)
    put(fr(0x5307, [(0, 40, True), (24, 8, False)]))
    # a TCP header cut after 8 bytes, then a fragment at 8 rewriting flags,
    # on the tuple of a connection that ended
    conv = g.Tcp(c, fam.C, fam.S, 53100, 443, 11000, 12000)
    conv.handshake(t[0])
    conv.close(t[0] + 0.05)
    t[0] += 0.2
    seg = g.tcp(53100, 443, conv.nxt[0], conv.nxt[1], "PA", payload(100))
    rst = g.tcp(53100, 443, conv.nxt[0], conv.nxt[1], "R", payload(100))
    put(fr(0x5308, [(0, 8, True), (8, len(seg) - 8, False), (8, len(seg) - 8, False, rst[8:])], l4=seg, proto=6))
    # forty 16-byte fragments, each overlapping the one before by 8
    pieces = [(k * 8, 16, True) for k in range(40)] + [(40 * 8, n - 40 * 8, False)]
    put(fr(0x5309, pieces))
    # the same ID for another transport (IPv4 keys on it; IPv6 does not)
    put(fr(0x530A, [(0, f, True)]) + fr(0x530A, [(f, n - f, False)], l4=g.tcp(53200, 443, 1, 1, "A", payload(3000)), proto=6))
    return c


probe("frag4-after-end.pcap", "IPv4 fragments of a TCP flow closed 29 s before and of a UDP flow expired 9 s before; "
      "lone first and later fragments; reassembly time exceeded and frag-needed quoting them")(lambda: frag_after_end(Fam(False)))
probe("frag6-after-end.pcap", "frag4-after-end in IPv6 (fragment headers, ICMPv6)")(lambda: frag_after_end(Fam(True)))
probe("frag4-before-first.pcap", "IPv4 fragments arriving before their first fragment: last-first order, a first "
      "that never comes, a first 37 s late (past the 30 s timeout), a closed flow's segment")(lambda: frag_before_first(Fam(False)))
probe("frag6-before-first.pcap", "frag4-before-first in IPv6")(lambda: frag_before_first(Fam(True)))
probe("frag4-overlap.pcap", "overlapping IPv4 fragments: tail overlap, a rewritten first fragment, nesting, two "
      "different ends, data past the end, past 65535 bytes, teardrop, a TCP header rewritten by a later fragment, "
      "40 overlapping fragments, one ID for two transports")(lambda: frag_overlap(Fam(False)))
probe("frag6-overlap.pcap", "frag4-overlap in IPv6")(lambda: frag_overlap(Fam(True)))


# ------------------------------------- a datagram outliving its flow

def frag_tail(fam, how):
    """A segment's (and a UDP datagram's) first fragment reaches its flow;
    the flow ends before the rest of the datagram comes, within the
    router's 30 s: the router still routes the rest to the flow's tuple.
    how: "ended" (RST, then the 10 s linger), "reused" (a new SYN on the
    tuple) or "evicted" (24 newer flows, --max-flows 16)."""
    c = g.Capture()
    f = fam.frag
    subjects = []
    for i in range(3):
        conv = g.Tcp(c, fam.C, fam.S, 53000 + i, 443, 0x11000000 * (i + 1), 0x77000000 + i)
        conv.handshake(1.0 + i * 0.01)
        seg = g.tcp(conv.port[0], 443, conv.nxt[0], conv.nxt[1], "PA", payload(3 * f + 100, i))
        fr = fam.frags(fam.C, fam.S, 6, seg, 0x5300 + i, g.split(len(seg), f))
        c.add(1.1 + i * 0.01, fr[0])
        subjects.append((conv, fr))
    ufr = fam.frags(fam.C, fam.S, 17, g.udp(53100, 9000, payload(3 * f + 50)), 0x5310, g.split(3 * f + 58, f))
    c.add(1.2, ufr[0])
    if how == "ended":
        for i, (conv, _) in enumerate(subjects):
            conv.send(1.3 + i * 0.01, 0, "RA")
        ticks(c, fam, (5.0, 12.0))
        t = 13.0
    elif how == "reused":
        for i, (conv, _) in enumerate(subjects):
            c.add(1.3 + i * 0.01, g.ip(fam.C, fam.S, 6, g.tcp(conv.port[0], 443, 0x22000000 * (i + 1), 0, "S",
                                                              opts=g.tcp_opts_syn())))
        t = 1.5
    else:
        for i in range(24):
            c.add(1.3 + i * 0.005, g.ip(fam.C, fam.S2, 17, g.udp(54000 + i, 7000 + i, b"filler")))
        t = 1.5
    # the rest of each datagram, the UDP one last-first
    for i, (_, fr) in enumerate(subjects):
        for k, p in enumerate(fr[1:]):
            c.add(t + i * 0.01 + k * 0.001, p)
    for k, p in enumerate(reversed(ufr[1:])):
        c.add(t + 0.05 + k * 0.001, p)
    # errors quoting tail fragments (routed by their datagram), the tail again
    c.add(t + 0.1, icmp_for(fam, "reasmtimeout", subjects[0][1][1]), outbound=False)
    c.add(t + 0.11, icmp_for(fam, "fragneeded", subjects[1][1][-1]), outbound=False)
    c.add(t + 0.12, icmp_for(fam, "reasmtimeout", ufr[1]), outbound=False)
    c.add(t + 0.13, subjects[0][1][2])
    # the tuples again: the old connection talks on, a new SYN, a datagram
    subjects[2][0].send(t + 0.2, 0, "PA", payload(100, 9))
    c.add(t + 0.21, g.ip(fam.C, fam.S, 6, g.tcp(53000, 443, 0x33000000, 0, "S", opts=g.tcp_opts_syn())))
    c.add(t + 0.22, g.ip(fam.C, fam.S, 17, g.udp(53100, 9000, payload(40))))
    # a first fragment of an old datagram again, then its tail
    c.add(t + 0.3, subjects[1][1][0])
    c.add(t + 0.31, subjects[1][1][1])
    return c


TAIL_TEXT = {
    "ended": "reset, past its 10 s linger",
    "reused": "replaced by a new SYN on its 4-tuple",
    "evicted": "evicted by 24 newer flows (--max-flows 16)",
}
for _how, _text in TAIL_TEXT.items():
    probe("frag4-tail-%s.pcap" % _how, "IPv4 TCP segments and a UDP datagram whose first fragment reached its flow, "
          "the rest after the flow was %s; errors quoting the rest, then the tuples again" % _text,
          "--max-flows 16" if _how == "evicted" else "")((lambda h: lambda: frag_tail(Fam(False), h))(_how))
    probe("frag6-tail-%s.pcap" % _how, "frag4-tail-%s in IPv6" % _how,
          "--max-flows 16" if _how == "evicted" else "")((lambda h: lambda: frag_tail(Fam(True), h))(_how))


def evict_sharded():
    """--max-flows 256: 4 shards of 64 flows, which 2 or 4 workers share.
    The subjects of the ICMP probes and a datagram's first fragment, then
    400 newer flows (about 100 a shard): each shard evicts its oldest. Then
    errors quoting the evicted flows, the datagram's rest, the tuples."""
    c = g.Capture()
    fam = Fam(False)
    quotes = tcp_subjects(c, fam, 1.0, 44000) + udp_subjects(c, fam, 1.1, 44100)
    conv = g.Tcp(c, fam.C, fam.S, 44200, 443, 0x12340000, 0x43210000)
    conv.handshake(1.2)
    seg = g.tcp(44200, 443, conv.nxt[0], conv.nxt[1], "PA", payload(2 * fam.frag + 100))
    fr = fam.frags(fam.C, fam.S, 6, seg, 0x4420, g.split(len(seg), fam.frag))
    c.add(1.25, fr[0])
    for i in range(400):
        c.add(1.3 + i * 0.001, g.ip(fam.C, "10.4.%d.%d" % (i // 200, i % 200 + 1), 17,
                                     g.udp(20000 + i, 5000 + i % 7, b"filler")))
    t = 2.0
    for i, q in enumerate(quotes):
        c.add(t + i * 0.01, icmp_for(fam, "fragneeded" if i % 2 else "portunreach", q), outbound=False)
    for k, p in enumerate(fr[1:]):
        c.add(t + 0.1 + k * 0.001, p)
    c.add(t + 0.11, icmp_for(fam, "reasmtimeout", fr[1]), outbound=False)
    for i, q in enumerate(quotes):
        c.add(t + 0.2 + i * 0.01, q)
    conv.send(t + 0.3, 1, "A")
    return c


probe("evict-sharded.pcap", "TCP and UDP flows and a datagram's first fragment, evicted from 4 shards of 64 "
      "(--max-flows 256, shared by 2 or 4 workers) by 400 newer flows; errors quoting them, the datagram's "
      "rest, the tuples again", "--max-flows 256")(evict_sharded)


def frag_router_caps():
    """The router's bounds: 950 non-first fragments of 9000 bytes, each of
    its own datagram (past the 8 MiB held: the oldest datagrams give theirs
    up to their pseudo-flows), then the first fragments of the oldest and
    newest; 4200 tiny ones (past the 4096 datagrams followed); errors
    quoting a given-up and a held fragment."""
    c = g.Capture()
    fam = Fam(False)
    big = []
    for i in range(950):
        dg = g.udp(30000 + i % 50, 9000, bytes(9000 + 8))
        fr = g.fragments4(fam.C, fam.S, 17, dg, 0x8000 + i, [(0, 8, True), (8, 9000, False)])
        big.append(fr)
        c.add(1.0 + i * 0.001, fr[1])
    for i in (0, 1, 2, 947, 948, 949):
        c.add(2.0 + i * 0.0001, big[i][0])
    for i in range(4200):
        dg = g.udp(31000, 9001, bytes(24))
        fr = g.fragments4(fam.C, fam.S2, 17, dg, i, [(0, 16, True), (16, 16, False)])
        c.add(3.0 + (i // 100) * 0.01, fr[1])
    c.add(4.0, icmp_for(fam, "reasmtimeout", big[3][1]), outbound=False)
    c.add(4.01, icmp_for(fam, "reasmtimeout", big[949][1]), outbound=False)
    return c


probe("frag-router-caps.pcap.gz", "950 lone 9000-byte later fragments (past the router's 8 MiB of held "
      "fragments), some first fragments late, 4200 lone tiny ones (past its 4096 datagrams); errors quoting "
      "given-up and held ones")(frag_router_caps)


# ------------------------------------------------------ sequence wrap

def seqwrap_retrans():
    """The client's sequence space wraps inside a lost full-size segment,
    which is retransmitted (fast, then three timeouts), refused by a router
    (frag-needed) and resent smaller; the server's reply wraps inside a
    segment retransmitted once."""
    c = g.Capture()
    fam = Fam(False)
    mss = 1460
    conv = g.Tcp(c, fam.C, fam.S, 54000, 443, 2**32 - 5000, 2**32 - 2000)
    conv.handshake(1.0)
    start = conv.nxt[0]
    segs = []
    for i in range(10):
        segs.append((conv.nxt[0], conv.send(1.1 + i * 0.0005, 0, "A", payload(mss, i))))
    lost_seq = segs[3][0]
    lost_end = (lost_seq + mss) & 0xFFFFFFFF
    # ACKs up to the hole, then duplicates whose SACK blocks wrap
    for i in range(3):
        conv.send(1.12 + i * 0.0005, 1, "A", ack=(start + (i + 1) * mss) & 0xFFFFFFFF)
    for i in range(4, 10):
        right = (start + (i + 1) * mss) & 0xFFFFFFFF
        conv.send(1.122 + i * 0.0005, 1, "A", ack=lost_seq, opts=g.tcp_opt_sack([(lost_end, right)]))
    retx = None
    for k, at in enumerate((1.13, 1.35, 1.75, 2.55)):
        retx = conv.send(at, 0, "A", payload(mss, 3), seq=lost_seq)
        conv.send(at + 0.01, 1, "A", ack=lost_seq,
                  opts=g.tcp_opt_sack([(lost_end, (start + 10 * mss) & 0xFFFFFFFF)]))
    c.add(2.551, icmp_for(fam, "fragneeded", retx), outbound=False)
    conv.send(2.56, 0, "A", payload(1300, 3), seq=lost_seq)
    conv.send(2.5601, 0, "A", payload(mss - 1300, 33), seq=(lost_seq + 1300) & 0xFFFFFFFF)
    conv.send(2.57, 1, "A")  # everything, past the wrap
    # the reply wraps too: its second segment is lost once
    r0 = conv.nxt[1]
    conv.send(2.6, 1, "PA", payload(mss, 50))
    conv.send(2.6005, 1, "PA", payload(mss, 51))
    conv.send(2.601, 1, "PA", payload(mss, 52))
    conv.send(2.61, 0, "A", ack=(r0 + mss) & 0xFFFFFFFF)
    conv.send(2.611, 0, "A", ack=(r0 + mss) & 0xFFFFFFFF,
              opts=g.tcp_opt_sack([((r0 + 2 * mss) & 0xFFFFFFFF, (r0 + 3 * mss) & 0xFFFFFFFF)]))
    conv.send(2.82, 1, "PA", payload(mss, 51), seq=(r0 + mss) & 0xFFFFFFFF)
    conv.send(2.83, 0, "A")
    conv.close(3.0)
    return c


def seqwrap_edge():
    """A segment that starts at sequence 0 exactly, lost and retransmitted;
    ACK and SACK edges of exactly 0; an error quoting sequence 0."""
    c = g.Capture()
    fam = Fam(False)
    mss = 1460
    conv = g.Tcp(c, fam.C, fam.S, 55000, 443, 2**32 - 2 * mss - 1, 77)
    conv.handshake(1.0)
    conv.send(1.1, 0, "A", payload(mss, 1))
    conv.send(1.1005, 0, "A", payload(mss, 2))  # ends at 2**32 = 0
    zero = conv.send(1.101, 0, "A", payload(mss, 3))  # starts at 0
    conv.send(1.1015, 0, "A", payload(mss, 4))
    conv.send(1.12, 1, "A", ack=0)
    conv.send(1.1205, 1, "A", ack=0, opts=g.tcp_opt_sack([(mss, 2 * mss)]))
    conv.send(1.121, 1, "A", ack=0, opts=g.tcp_opt_sack([(mss, 2 * mss), (2**32 - mss, 0)]))
    conv.send(1.13, 0, "A", payload(mss, 3), seq=0)
    c.add(1.131, icmp_for(fam, "fragneeded", zero), outbound=False)
    conv.send(1.35, 0, "A", payload(mss, 3), seq=0)
    conv.send(1.36, 1, "A")
    conv.send(1.4, 0, "A", b"", seq=(2**32 - 1))  # a keepalive-like probe across the wrap
    conv.close(1.5)
    return c


probe("tcp-seqwrap-retrans.pcap", "TCP sequence wrap (2^32) inside a lost segment: fast retransmit, three RTOs, "
      "SACK blocks across the wrap, frag-needed, a smaller resend; the reply wraps inside a retransmission")(seqwrap_retrans)
probe("tcp-seqwrap-edge.pcap", "a TCP segment starting at sequence 0, retransmitted; ACK and SACK edges at 0; "
      "frag-needed quoting sequence 0")(seqwrap_edge)


# ----------------------------------------------------- time backwards

def time_back_tcp():
    c = g.Capture(in_order=True)
    fam = Fam(False)
    conv = g.Tcp(c, fam.C, fam.S, 56000, 443, 100000, 200000)
    conv.handshake(100.0)
    d = conv.data(100.05, 0, fam.small - 40)
    conv.close(101.0)
    ticks(c, fam, (105.0, 112.5))  # the closed flow is finalized
    # before its end, after it was finalized
    conv.send(100.5, 1, "A", seq=(conv.nxt[1] - 1) & 0xFFFFFFFF)
    c.add(100.6, icmp_for(fam, "fragneeded", d), outbound=False)
    ticks(c, fam, (113.0,))
    # before its first packet
    conv.send(50.0, 0, "PA", payload(100), seq=(conv.isn[0] + 1) & 0xFFFFFFFF)
    c.add(50.1, icmp_for(fam, "portunreach", d), outbound=False)
    # far ahead (everything expires), then back again into the same tuple
    ticks(c, fam, (5000.0,))
    conv2 = g.Tcp(c, fam.C, fam.S, 56000, 443, 300000, 400000)
    conv2.handshake(200.0)
    conv2.data(200.1, 0, fam.small - 40)
    c.add(200.2, icmp_for(fam, "fragneeded", d), outbound=False)
    conv2.send(5001.0, 0, "RA")
    return c


def time_back_udp():
    c = g.Capture(in_order=True)
    fam = Fam(False)
    u = lambda t, n: c.add(t, g.ip(fam.C, fam.S, 17, g.udp(56100, 9000, payload(n))))  # noqa: E731
    d = u(1000.0, fam.small - 28)
    ticks(c, fam, (1001.5, 1125.0))  # parked, then expired
    u(999.0, fam.small - 28)  # before its first packet
    c.add(999.5, icmp_for(fam, "fragneeded", d), outbound=False)
    u(1126.0, 10)
    c.add(1000.5, icmp_for(fam, "fragneeded", d), outbound=False)
    ticks(c, fam, (1127.5,))
    c.add(1127.6, icmp_for(fam, "adminprohib", d), outbound=False)
    return c


probe("time-back-tcp-end.pcap", "time going backwards across a TCP flow's end: packets and errors timestamped before "
      "its FIN after it was finalized, before its first packet, and a jump of 4800 s back into a reused tuple")(time_back_tcp)
probe("time-back-udp-expire.pcap", "time going backwards across a UDP flow's parking and expiry, with frag-needed "
      "and admin-prohibited quoting it")(time_back_udp)


# ------------------------------------------------------- packed flows
# A flow silent for a second has its detector blocks packed; whatever
# comes next for it (data, its end, an error, a fragment, its tuple reused,
# time going back, eviction, the capture's end) must find them intact.

def keepalive(c, fam, port, t, n=2):
    """An HTTP/1.1-like keep-alive connection: a handshake, n exchanges."""
    conv = g.Tcp(c, fam.C, fam.S, port, 443, 0x01000000 * (port % 200 + 1), 0x50000000 + port)
    conv.handshake(t)
    last = None
    for k in range(n):
        last = conv.data(t + 0.02 + k * 0.1, 0, 300 + k)
        conv.data(t + 0.05 + k * 0.1, 1, 1200 + 100 * k)
        conv.send(t + 0.06 + k * 0.1, 0, "A")
    return conv, last


def packed_wake(v6):
    def build():
        c = g.Capture(in_order=True)
        fam = Fam(v6)
        # one after another, so that the file is in time order but for the
        # one packet stamped back on purpose
        convs = [keepalive(c, fam, 58000 + i, 1.0 + i * 0.17) for i in range(9)]
        ticks(c, fam, (3.0, 4.5, 5.5))  # all nine packed by now
        t = 6.0
        (a, _), (b, _), (cc, _), (d, _), (e, ed), (f, _), (h, _), (k, kd), _ = convs
        a.data(t, 0, 400)  # another request: unpacked, then packed again
        a.data(t + 0.03, 1, 5000)
        a.send(t + 0.04, 0, "A")
        b.send(t + 0.1, 1, "RA")  # reset while packed
        cc.close(t + 0.2)  # closed while packed
        # the 4-tuple reused by a new SYN while the old flow is packed
        d2 = g.Tcp(c, fam.C, fam.S, d.port[0], 443, 0x7A000000, 0x7B000000)
        d2.handshake(t + 0.3)
        d2.data(t + 0.35, 0, 200)
        c.add(t + 0.4, icmp_for(fam, "fragneeded", ed), outbound=False)  # an error for a packed flow
        # a segment of a packed flow in fragments
        seg = g.tcp(f.port[0], 443, f.nxt[0], f.nxt[1], "PA", payload(2 * fam.frag + 100, 3))
        f.nxt[0] = (f.nxt[0] + len(seg) - 20) & 0xFFFFFFFF
        for j, fr in enumerate(fam.frags(fam.C, fam.S, 6, seg, 0x5800, g.split(len(seg), fam.frag))):
            c.add(t + 0.5 + j * 0.0001, fr)
        h.send(2.0, 0, "PA", payload(50, 9))  # stamped before its packing: time back onto it
        h.send(t + 0.6, 1, "A")
        c.add(t + 0.7, icmp_for(fam, "portunreach", kd), outbound=False)
        ticks(c, fam, (8.0, 9.5))  # a packed again; the rest stay packed to the end
        return c
    return build


def packed_evicted():
    """Twenty keep-alive flows packed, then 40 newer flows: with
    --max-flows 16 the packed ones are evicted, and errors quote them."""
    c = g.Capture()
    fam = Fam(False)
    lasts = [keepalive(c, fam, 58100 + i, 1.0 + i * 0.01, n=1)[1] for i in range(20)]
    ticks(c, fam, (2.5, 4.0))
    for i in range(40):
        c.add(4.2 + i * 0.005, g.ip(fam.C, fam.S2, 17, g.udp(45000 + i, 7000 + i, b"filler")))
    for i, q in enumerate(lasts[:6]):
        c.add(4.5 + i * 0.01, icmp_for(fam, "fragneeded", q), outbound=False)
    return c


probe("packed-wake.pcap", "nine keep-alive flows idle 4 s (packed), then each woken differently: a new request, "
      "a RST, a FIN close, its 4-tuple reused, frag-needed, a segment in fragments, a packet stamped before its "
      "packing, port unreachable; the rest end packed")(packed_wake(False))
probe("packed-wake-v6.pcap", "packed-wake.pcap over IPv6")(packed_wake(True))
probe("packed-evicted.pcap", "twenty keep-alive flows packed, then evicted by 40 newer flows (--max-flows 16); "
      "frag-needed quoting six of them", "--max-flows 16")(packed_evicted)


# --------------------------------------------------------- tuple reuse

def reuse_after_fin():
    c = g.Capture()
    fam = Fam(False)
    old = g.Tcp(c, fam.C, fam.S, 57000, 443, 1000, 2000)
    old.handshake(1.0)
    od = old.data(1.05, 0, fam.small - 40)
    old.data(1.07, 1, fam.small - 40)
    old.close(1.1)
    new = g.Tcp(c, fam.C, fam.S, 57000, 443, 900000, 800000)
    syn = new.handshake(3.0)  # within the closed flow's 10 s linger
    new.data(3.1, 0, fam.big - 40)
    old.send(3.2, 0, "PA", payload(fam.small - 40), seq=(old.isn[0] + 1) & 0xFFFFFFFF)  # the old one, late
    c.add(3.3, icmp_for(fam, "fragneeded", od), outbound=False)
    c.add(3.4, icmp_for(fam, "portunreach", syn), outbound=False)
    new.close(3.5)
    return c


def reuse_open():
    c = g.Capture()
    fam = Fam(False)
    old = g.Tcp(c, fam.C, fam.S, 57100, 443, 5000, 6000)
    old.handshake(1.0)
    od = None
    for i in range(3):
        od = old.send(1.1 + i * 0.001, 0, "PA", payload(1460, i))  # in flight, never ACKed
    new = g.Tcp(c, fam.C, fam.S, 57100, 443, 3000000, 4000000)
    new.send(2.0, 0, "S", opts=g.tcp_opts_syn())
    old.send(2.001, 1, "A")  # a challenge ACK from the old connection
    new.send(2.01, 1, "SA", opts=g.tcp_opts_syn())
    new.send(2.0101, 0, "A")
    new.data(2.05, 0, fam.small - 40)
    old.send(2.2, 1, "PA", payload(500))  # the old server still talks
    c.add(2.25, icmp_for(fam, "fragneeded", od), outbound=False)
    old.send(2.3, 1, "R")
    # the former server opens a connection back on the same tuple
    rev = g.Tcp(c, fam.S, fam.C, 443, 57100, 7000000, 8000000)
    rev.client_side = False
    rev.handshake(3.0)
    rev.data(3.05, 0, 200)
    c.add(3.1, icmp_for(fam, "portunreach", od), outbound=False)
    rev.close(3.2)
    return c


def reuse_half_open():
    c = g.Capture()
    fam = Fam(False)
    first = g.Tcp(c, fam.C, fam.S, 57200, 443, 10000, 0)
    syn1 = first.send(1.0, 0, "S", payload(fam.small - 52), opts=g.tcp_opts_syn())  # TFO, 560 bytes
    ticks(c, fam, (2.2,))  # parkable by now
    second = g.Tcp(c, fam.C, fam.S, 57200, 443, 20000, 30000)
    syn2 = second.send(3.0, 0, "S", opts=g.tcp_opts_syn())
    second.send(3.01, 1, "SA", opts=g.tcp_opts_syn())
    c.add(3.1, icmp_for(fam, "fragneeded", syn1), outbound=False)
    c.add(3.11, icmp_for(fam, "fragneeded", syn2), outbound=False)
    first.send(4.0, 0, "S", payload(fam.small - 52), seq=10000, opts=g.tcp_opts_syn())  # the old SYN again
    ticks(c, fam, (5.5,))
    # SYNs alternating between two ISNs: a new flow each time
    for k in range(20):
        isn = 10000 if k % 2 else 20000
        c.add(6.0 + k * 0.05, g.ip(fam.C, fam.S, 6, g.tcp(57200, 443, isn, 0, "S", payload(fam.small - 52) if k % 2 else b"",
                                                           opts=g.tcp_opts_syn())))
    c.add(7.5, icmp_for(fam, "fragneeded", syn1), outbound=False)
    c.add(7.6, icmp_for(fam, "adminprohib", syn1), outbound=False)
    return c


probe("reuse-after-fin.pcap", "a 4-tuple reused (new SYN, new ISN) 1.9 s after a FIN close while the closed flow "
      "lingers; a late segment and an error for the old connection")(reuse_after_fin)
probe("reuse-open.pcap", "a 4-tuple reused without FIN while data is in flight; the old connection talks on; "
      "then the former server opens the tuple in reverse")(reuse_open)
probe("reuse-half-open.pcap", "an unanswered 560-byte SYN (parkable) replaced by a SYN with a new ISN on its tuple; "
      "errors quoting both; 20 SYNs alternating two ISNs")(reuse_half_open)


# ------------------------------------------------------------ SYN flood

def synflood():
    """16 600 SYNs from distinct ports in 1.7 s (past the 16 384 half-open
    cap), the first eight carrying data (560 bytes, which pmtu follows);
    then errors quoting evicted and live ones, and late answers."""
    c = g.Capture()
    fam = Fam(False)
    big = []
    for i in range(8):
        big.append(c.add(1.0 + i * 0.0001, g.ip(fam.C, fam.S, 6, g.tcp(1024 + i, 80, 0x1000 * i, 0, "S", payload(fam.small - 52, i),
                                                                         opts=g.tcp_opts_syn()))))
    # Outbound SYNs under checksum offload (the TCP checksum field holds
    # the pseudo header's sum) in bursts of 128 with one timestamp: all but
    # the source port the same, which keeps the gzip'd file under 100 KB.
    last = None
    for i in range(16600):
        seg = g.offloaded(fam.C, fam.S, 6, g.tcp(1100 + i, 80, 0x5EED0000, 0, "S", win=1024))
        last = c.add(1.01 + (i // 128) * 0.013, g.ip4(fam.C, fam.S, 6, seg, l4_checksum=False))
    t = 2.8
    c.add(t, icmp_for(fam, "fragneeded", big[0]), outbound=False)
    c.add(t + 0.01, icmp_for(fam, "portunreach", big[1]), outbound=False)
    c.add(t + 0.02, icmp_for(fam, "adminprohib", big[2]), outbound=False)
    c.add(t + 0.03, icmp_for(fam, "fragneeded", last), outbound=False)
    # a SYN-ACK and a RST for evicted flows, an error for one again
    c.add(t + 0.1, g.ip(fam.S, fam.C, 6, g.tcp(80, 1027, 0x9000, 0x3001, "SA", opts=g.tcp_opts_syn())), outbound=False)
    c.add(t + 0.11, g.ip(fam.S, fam.C, 6, g.tcp(80, 1028, 0, 0x4001, "RA")), outbound=False)
    c.add(t + 0.2, icmp_for(fam, "fragneeded", big[3]), outbound=False)
    return c


probe("synflood-evict-icmp.pcap.gz", "16 608 SYNs (past the 16 384 half-open cap; the first eight 560-byte TFO SYNs "
      "evicted), then errors quoting evicted and live flows, a SYN-ACK and a RST for evicted ones")(synflood)


# ----------------------------------------------------- ICMP in ICMP

def icmp_nested(fam):
    c = g.Capture()
    d = c.add(1.0, g.ip(fam.C, fam.S, 17, g.udp(58000, 9000, payload(fam.small - fam.hdr - 8))))
    conv = g.Tcp(c, fam.C, fam.S, 58100, 443, 123456, 654321)
    conv.handshake(1.01)
    td = conv.data(1.05, 0, fam.small - fam.hdr - 20)
    pu = icmp_for(fam, "portunreach", d)  # from S to C
    c.add(1.1, pu, outbound=False)
    # C answers S's error with an error (it should not), quoting it whole
    e1 = g.icmp_error(fam.C, fam.S, *(((2, 0) if fam.v6 else (3, 4))), pu, mtu=1280 if fam.v6 else 552)
    c.add(1.11, e1)
    e2 = icmp_for(fam, "adminprohib", e1)  # three deep
    c.add(1.12, e2, outbound=False)
    c.add(1.13, icmp_for(fam, "fragneeded", e2), outbound=False)  # four deep
    # errors quoting errors about the TCP flow, with short quotes
    fn = icmp_for(fam, "fragneeded", td)
    c.add(1.2, fn, outbound=False)
    for k, q in enumerate((fam.hdr, fam.hdr + 4, fam.hdr + 8, fam.hdr + 8 + fam.hdr + 2)):
        c.add(1.21 + k * 0.001, g.icmp_error(fam.C, fam.R, *(((1, 4) if fam.v6 else (3, 3))), fn, quote=q))
    # an error quoting an echo request, and an error quoting the other IP version
    echo = c.add(1.3, g.icmp_echo(fam.C, fam.S, 7, 1, payload(fam.small - fam.hdr - 8)))
    c.add(1.31, icmp_for(fam, "fragneeded", echo), outbound=False)
    other = Fam(not fam.v6)
    alien = g.ip(other.C, other.S, 17, g.udp(58000, 9000, payload(600)))
    c.add(1.32, g.icmp_error(fam.R, fam.C, *(((2, 0) if fam.v6 else (3, 4))), alien, mtu=1280 if fam.v6 else 552),
          outbound=False)
    # an error quoting a first fragment of an error
    fr = fam.frags(fam.C, fam.S, 58 if fam.v6 else 1, pu[fam.hdr:] + payload(2000), 0x5801, g.split(len(pu) - fam.hdr + 2000, fam.frag))
    c.add(1.4, fr[0])
    c.add(1.41, icmp_for(fam, "reasmtimeout", fr[0]), outbound=False)
    if not fam.v6:
        # redirect, source quench, parameter problem and TTL exceeded about the flows
        for k, (typ, code) in enumerate(((5, 1), (4, 0), (12, 0), (11, 0))):
            c.add(1.5 + k * 0.01, g.icmp_error(fam.R, fam.C, typ, code, td, rest=b"\x0a\x09\x00\xfe"), outbound=False)
    else:
        # parameter problem pointing past the quote, and a quote with
        # extension headers before the transport
        c.add(1.5, g.icmp_error(fam.R, fam.C, 4, 0, d, rest=b"\x00\x00\xff\xff"), outbound=False)
        hbh = bytes([17, 0, 1, 4, 0, 0, 0, 0])
        ext = g.ip6(fam.C, fam.S, 0, hbh + g.with_l4_checksum(fam.C, fam.S, 17, g.udp(58000, 9000, payload(1300))), l4_checksum=False)
        c.add(1.51, icmp_for(fam, "fragneeded", ext), outbound=False)
    return c


probe("icmp-nested.pcap", "ICMP errors quoting ICMP errors (up to four deep, short quotes), an echo request, an "
      "IPv6 packet and a fragment of an error; redirect, source quench, parameter problem, TTL exceeded")(lambda: icmp_nested(Fam(False)))
probe("icmp6-nested.pcap", "icmp-nested in ICMPv6, with parameter problem and a quote with a hop-by-hop header")(lambda: icmp_nested(Fam(True)))


# --------------------------------------------------------- zero length

def zero_frags():
    c = g.Capture()
    for fam in (Fam(False), Fam(True)):
        conv = g.Tcp(c, fam.C, fam.S, 59000, 443, 1, 2)
        conv.handshake(1.0)
        conv.close(1.1)
        ticks(c, fam, (12.0,))
        dg = g.udp(59100, 9000, payload(100))
        for k, pieces in enumerate(([(0, 0, True)], [(0, 0, True), (0, len(dg), False)], [(0, len(dg), True), (len(dg) & ~7, 0, False)],
                                    [(1480, 0, True)], [(8, 0, False)])):
            for j, p in enumerate(fam.frags(fam.C, fam.S, 17, dg, 0x5900 + k, pieces)):
                c.add(13.0 + k * 0.01 + j * 0.001, p)
        # zero-length fragments on the closed connection's tuple
        seg = g.tcp(59000, 443, conv.nxt[0], conv.nxt[1], "A")
        for j, p in enumerate(fam.frags(fam.C, fam.S, 6, seg, 0x5910, [(0, 0, True), (0, 20, True), (24, 0, False)])):
            c.add(14.0 + j * 0.001, p)
        c.add(14.1, icmp_for(fam, "reasmtimeout", fam.frags(fam.C, fam.S, 17, dg, 0x5900, [(0, 0, True)])[0]), outbound=False)
    return c


def zero_icmp():
    c = g.Capture()
    for fam in (Fam(False), Fam(True)):
        d = c.add(1.0, g.ip(fam.C, fam.S, 17, g.udp(59200, 9000, payload(fam.small - fam.hdr - 8))))
        z = c.add(1.01, g.ip(fam.C, fam.S, 17, g.udp(59201, 9000)))  # no payload
        for k, q in enumerate((0, 1, fam.hdr - 1, fam.hdr, fam.hdr + 2, fam.hdr + 4)):
            for kind in KINDS:
                c.add(2.0 + k * 0.01, icmp_for(fam, kind, d, quote=q), outbound=False)
        c.add(2.1, icmp_for(fam, "fragneeded", z), outbound=False)
        # ICMP messages of 8 and 4 bytes, and one whose IP length says 8 of 40
        typ = 2 if fam.v6 else 3
        proto = 58 if fam.v6 else 1
        c.add(2.2, g.ip(fam.R, fam.C, proto, bytes([typ, 4, 0, 0, 0, 0, 2, 36])), outbound=False)
        c.add(2.21, g.ip(fam.R, fam.C, proto, bytes([typ, 4, 0, 0])), outbound=False)
        full = icmp_for(fam, "fragneeded", d, quote=32)
        if fam.v6:
            cut = full[:4] + b"\x00\x08" + full[6:]
        else:
            cut = g.ip4(fam.R, fam.C, 1, full[20:], df=False, total_len=28, l4_checksum=False)
        c.add(2.22, cut, outbound=False)
    return c


def zero_records():
    c = g.Capture()
    fam = Fam(False)
    d = c.add(1.0, g.ip(fam.C, fam.S, 17, g.udp(59300, 9000, payload(fam.small - 28))))
    c.frame(1.1, b"", 74)  # nothing captured of a 74-byte frame
    c.frame(1.2, b"", 0)  # a record of nothing
    c.frame(1.3, g.MAC_B + g.MAC_A + b"\x08\x00", 60)  # Ethernet header only
    ticks(c, fam, (2.5,))
    c.frame(2.6, b"", 0)
    c.add(2.7, icmp_for(fam, "fragneeded", d), outbound=False)
    # IP total length 0 (segmentation offload on the sender), TCP and UDP
    conv = g.Tcp(c, fam.C, fam.S, 59400, 443, 5, 6)
    conv.handshake(3.0)
    seg = conv.packet(0, "PA", payload(fam.small - 40))
    c.add(3.1, seg[:2] + b"\x00\x00" + seg[4:])
    u = g.ip(fam.C, fam.S, 17, g.udp(59300, 9000, payload(fam.small - 28)))
    c.add(3.2, u[:2] + b"\x00\x00" + u[4:])
    c.add(3.3, icmp_for(fam, "fragneeded", seg[:2] + b"\x00\x00" + seg[4:]), outbound=False)
    c.frame(3.4, b"", 1514)
    return c


probe("zero-frags.pcap", "zero-length IPv4 and IPv6 fragments (first, middle, last, alone), some on a closed "
      "flow's tuple; reassembly time exceeded quoting an empty first fragment")(zero_frags)
probe("zero-icmp.pcap", "ICMP and ICMPv6 errors with quotes of 0, 1, 19/39, 20/40, 22 and 24 bytes; errors of 8 "
      "and 4 bytes; an IP length shorter than the message; a zero-payload UDP flow quoted")(zero_icmp)
probe("zero-records.pcap", "pcap records with nothing captured (0 of 74 and 1514 bytes, 0 of 0), an Ethernet "
      "header alone, IP total length 0 (offload) on TCP and UDP, frag-needed quoting one")(zero_records)


# ------------------------------------------------ snaplen-cut variants

SNAPS = {
    14: "nothing past the Ethernet header",
    64: "22 bytes of an IPv4 error's quote, its ports cut; 2 of an IPv6 one",
    96: "54 bytes of an IPv4 error's quote; 34 of an IPv6 one, inside its header",
}
CUT = [
    ("icmp-fragneeded-parked.pcap", (14, 64, 96)),
    ("icmp-fragneeded-ended-fin.pcap", (64, 96)),
    ("icmp-reasmtimeout-evicted.pcap", (64, 96)),
    ("icmp6-parked.pcap", (64, 96)),
    ("frag4-overlap.pcap", (14, 64)),
    ("frag6-overlap.pcap", (64, 96)),
    ("icmp-nested.pcap", (64, 96)),
    ("icmp6-nested.pcap", (64, 96)),
    ("tcp-seqwrap-retrans.pcap", (64,)),
    ("reuse-half-open.pcap", (64,)),
]


def cut_probe(base, snap):
    fn = next(p[3] for p in PROBES if p[0] == base)
    return lambda: fn().cut(snap)


for _base, _snaps in CUT:
    _opts = next(p[1] for p in PROBES if p[0] == _base)
    for _snap in _snaps:
        probe(_base.replace(".pcap", "-snap%d.pcap" % _snap), "%s cut at snaplen %d (%s)" % (_base, _snap, SNAPS[_snap]),
              _opts)(cut_probe(_base, _snap))


# ----------------------------------------------------------------- main

def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--list":
        for name, opts, desc, _ in PROBES:
            print("%s\t%s\t%s" % (name, opts, desc))
        return 0
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    lines = ["# Extra pcapdoc options per probe (written by gen_probes.py): FILE OPTIONS..."]
    for name, opts, _, fn in PROBES:
        size = fn().write(os.path.join(out, name))
        if size >= 100_000:
            print("gen_probes: %s is %d bytes (over 100 KB)" % (name, size), file=sys.stderr)
            return 1
        if opts:
            lines.append("%s %s" % (name, opts))
    with open(os.path.join(out, "options"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
