#!/usr/bin/python3
"""TUN forwarder that moves a client's sequence space, like a firewall that
randomises initial sequence numbers per connection (or a client whose ISN
generator is unrelated to the old connection's).

  isn_shift.py --dev tun0 --client A --port P --shift K --duration S

Opens the existing TUN device (IFF_TUN|IFF_NO_PI), reads every packet the
kernel routes into it and writes it back (the kernel then forwards it). For
IPv4 TCP between --client and server port --port, per 4-tuple:
  - the first connection (the first SYN's ISN) is passed unchanged;
  - from the first SYN with a different ISN on, K is subtracted from the
    client's sequence numbers (client -> server) and added to the ACK
    number and SACK blocks of the server's packets (server -> client), so
    both hosts see a consistent connection, the server with an ISN lower by K.
Checksums are recomputed. Everything else passes untouched; nothing is
dropped. Prints "ready" when it runs, counts at exit.
"""
import argparse, fcntl, os, select, socket, struct, time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
M32 = 0xFFFFFFFF

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--client", required=True)
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--shift", type=int, required=True)
ap.add_argument("--duration", type=float, default=60.0)
a = ap.parse_args()
cli = socket.inet_aton(a.client)

fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


state = {}  # (cport) -> {"isn": first ISN, "off": current offset}
n_pkts = n_mod = 0


def fix(pkt):
    """Return the (possibly rewritten) packet."""
    global n_mod
    if len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6:
        return pkt
    ihl = (pkt[0] & 0x0F) * 4
    src, dst = pkt[12:16], pkt[16:20]
    b = bytearray(pkt)
    t = ihl
    sport, dport, seq, ack = struct.unpack("!HHII", b[t:t + 12])
    doff = (b[t + 12] >> 4) * 4
    flags = b[t + 13]
    syn, ackf = flags & 0x02, flags & 0x10
    if src == cli and dport == a.port:
        st = state.get(sport)
        if syn and not ackf:
            if st is None:
                st = state[sport] = {"isn": seq, "off": 0}
            elif seq != st["isn"]:
                st["isn"] = seq
                st["off"] = a.shift
        if not st or not st["off"]:
            return pkt
        struct.pack_into("!I", b, t + 4, (seq - st["off"]) & M32)
    elif dst == cli and sport == a.port:
        st = state.get(dport)
        if not st or not st["off"]:
            return pkt
        off = st["off"]
        if ackf:
            struct.pack_into("!I", b, t + 8, (ack + off) & M32)
        # SACK blocks (kind 5) refer to the client's sequence space
        i = t + 20
        while i < t + doff:
            kind = b[i]
            if kind == 0:
                break
            if kind == 1:
                i += 1
                continue
            ln = b[i + 1]
            if ln < 2:
                break
            if kind == 5:
                for j in range(i + 2, i + ln, 4):
                    v = struct.unpack_from("!I", b, j)[0]
                    struct.pack_into("!I", b, j, (v + off) & M32)
            i += ln
    else:
        return pkt
    total = struct.unpack("!H", b[2:4])[0]
    seg = b[t:total]
    seg[16:18] = b"\0\0"
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(seg))
    struct.pack_into("!H", seg, 16, csum(bytes(pseudo + seg)))
    b[t:total] = seg
    n_mod += 1
    return bytes(b)


print(f"isn_shift: ready dev={a.dev} client={a.client} port={a.port} shift={a.shift}", flush=True)
end = time.monotonic() + a.duration
while time.monotonic() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if not r:
        continue
    for _ in range(256):
        try:
            pkt = os.read(fd, 65536)
        except BlockingIOError:
            break
        n_pkts += 1
        try:
            os.write(fd, fix(pkt))
        except OSError:
            pass
print(f"isn_shift: packets={n_pkts} rewritten={n_mod}", flush=True)
