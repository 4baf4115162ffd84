#!/usr/bin/env python3
"""Writes the pmtu-park-udp-*.pcap regression captures (README.md here).

One IPv4 UDP datagram of SIZE bytes (IP total length), the capture going
quiet for two seconds while two other small UDP flows start, then an ICMP
fragmentation-needed from a router quoting the datagram. From 553 to 576
bytes, det_pmtu followed the flow (over its 552-byte floor) while the flow
was not pinned (576 bytes or less), so the flow could be parked at the
one-second tick and pmtu's pointer into it read after the free. 600 bytes
pins the flow: the control.

Usage: gen_pmtu_park.py [OUTDIR]   (default: this directory)
Deterministic: the same bytes on every run.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "probes"))
import pcapgen as g  # noqa: E402

SIZES = (560, 570, 600)
HOST, PEER, ROUTER, OTHER = "10.1.0.1", "10.2.0.1", "10.9.0.254", "10.2.0.7"


def capture(size):
    c = g.Capture()
    data = bytes(i & 0xFF for i in range(size - 28))
    dgram = c.add(10.0, g.ip4(HOST, PEER, 17, g.udp(40000, 9000, data), ident=0x1001))
    # two more flows after the first went quiet: new flow blocks, and a
    # packet past the one-second tick that parks an idle flow
    c.add(11.6, g.ip4(HOST, OTHER, 17, g.udp(40001, 9001, b"tick"), ident=0x1002))
    c.add(12.0, g.ip4(HOST, OTHER, 17, g.udp(40002, 9002, b"tock"), ident=0x1003))
    c.add(12.1, g.icmp_error(ROUTER, HOST, 3, 4, dgram, mtu=size - 8, quote=28), outbound=False)
    return c


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for size in SIZES:
        capture(size).write(os.path.join(out, "pmtu-park-udp-%d.pcap" % size))


if __name__ == "__main__":
    main()
