#!/usr/bin/python3
"""TUN delay forwarder that can also rewrite the TCP timestamp option (pcapdoc captures).

Like tun_delay.py: opens an existing TUN device (IFF_TUN|IFF_NO_PI), holds every packet the
kernel routes into it for --delay-ms and writes it back (the kernel then forwards it by its main
table). Runs at most --duration seconds; never drops a packet.

With --ts-src ADDR --ts-shift N: IPv4 TCP packets from ADDR get N subtracted (mod 2^32) from
the TSval of their timestamp option, and the TCP checksum recomputed, starting with the
--ts-from-data'th packet from ADDR that carries payload (1 = the first one) and for every
packet from ADDR after it (pure ACKs included). This is a middlebox whose idea of the sender's
timestamp clock jumps backwards in the middle of a connection (as after a failover between two
boxes that offset timestamps differently): the receiver's PAWS check then rejects the segments.
"""
import argparse, collections, fcntl, os, select, signal, socket, struct, time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--delay-ms", type=float, default=10.0)
ap.add_argument("--duration", type=float, default=60.0)
ap.add_argument("--ts-src", default="")
ap.add_argument("--ts-shift", type=int, default=0)
ap.add_argument("--ts-from-data", type=int, default=1)
a = ap.parse_args()


def csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


ts_src = socket.inet_aton(a.ts_src) if a.ts_src else None
n_data = 0
n_mangled = 0
first_mangled = None


def mangle(pkt):
    """Return the packet, with TSval shifted when it qualifies."""
    global n_data, n_mangled, first_mangled
    if ts_src is None or len(pkt) < 40 or pkt[0] >> 4 != 4 or pkt[9] != 6 or pkt[12:16] != ts_src:
        return pkt
    ihl = (pkt[0] & 15) * 4
    doff = (pkt[ihl + 12] >> 4) * 4
    tot = struct.unpack("!H", pkt[2:4])[0]
    if tot - ihl - doff > 0:
        n_data += 1
    if n_data < a.ts_from_data:
        return pkt
    b = bytearray(pkt)
    i, end = ihl + 20, ihl + doff
    while i < end:
        kind = b[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        ln = b[i + 1] if i + 1 < end else 0
        if ln < 2:
            break
        if kind == 8 and ln == 10:
            tsval = struct.unpack("!I", b[i + 2:i + 6])[0]
            struct.pack_into("!I", b, i + 2, (tsval - a.ts_shift) & 0xFFFFFFFF)
            b[ihl + 16:ihl + 18] = b"\0\0"
            pseudo = bytes(b[12:20]) + struct.pack("!BBH", 0, 6, tot - ihl)
            struct.pack_into("!H", b, ihl + 16, csum(pseudo + bytes(b[ihl:tot])))
            n_mangled += 1
            if first_mangled is None:
                first_mangled = time.monotonic() - start
            return bytes(b)
        i += ln
    return pkt


fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))
delay = a.delay_ms / 1000.0
q = collections.deque()
mono = time.monotonic
start = mono()
end = start + a.duration
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))  # print the counts, then exit
n_in = n_out = n_err = 0
print(f"tun_mangle: dev={a.dev} delay={a.delay_ms}ms duration={a.duration}s "
      f"ts_src={a.ts_src or '-'} ts_shift={a.ts_shift} ts_from_data={a.ts_from_data}", flush=True)
while True:
    now = mono()
    if now >= end or stop:
        break
    timeout = min(0.2, end - now)
    if q:
        timeout = max(0.0, min(timeout, q[0][0] - now))
    try:
        r, _, _ = select.select([fd], [], [], timeout)
    except InterruptedError:
        continue
    if r:
        t = mono() + delay
        for _ in range(512):  # bounded batch
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                break
            q.append((t, mangle(pkt)))
            n_in += 1
    now = mono()
    while q and q[0][0] <= now:
        try:
            os.write(fd, q.popleft()[1])
            n_out += 1
        except OSError:
            n_err += 1
fm = "-" if first_mangled is None else f"{first_mangled:.3f}s"
print(f"tun_mangle: in={n_in} out={n_out} write_errors={n_err} left={len(q)} "
      f"ts_mangled={n_mangled} first_mangled_at={fm}", flush=True)
