#!/usr/bin/env python3
"""A capture whose clock runs fast: drift.py IN OUT PPM rewrites every
record's time t of a classic pcap file to t0 + (t - t0) * (1 + PPM/1e6),
t0 its first record's time (the bytes are untouched). derive.sh makes
healthy/server-drift200.pcap with it."""
import struct
import sys


def main():
    src, dst, ppm = sys.argv[1], sys.argv[2], float(sys.argv[3])
    data = bytearray(open(src, "rb").read())
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    else:
        sys.exit("not a classic pcap file")
    unit = 1_000_000_000 if magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d") else 1_000_000
    off, t0 = 24, None
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from(end + "IIII", data, off)
        t = sec * unit + frac
        if t0 is None:
            t0 = t
        t = t0 + round((t - t0) * (1 + ppm / 1e6))
        struct.pack_into(end + "II", data, off, t // unit, t % unit)
        off += 16 + incl
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
