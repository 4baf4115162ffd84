#!/usr/bin/python3
"""TUN delay forwarder that lets some data packets arrive late (pcapdoc captures).

Like tun_delay.py: opens an existing TUN device (IFF_TUN|IFF_NO_PI), holds every packet the
kernel routes into it for --delay-ms and writes it back, whence the kernel forwards it by its
main table; never drops; exits after --duration s. In addition, among the packets to
--late-dst A[,B..] of at least --late-min-len bytes (IP length; default 500 = data, not pure
ACKs), the --late-first'th and every --late-every'th after it (at most --late-count of them)
is held --late-ms longer: the packets behind it overtake it (one path of a load-balanced pair
being slower for a moment). Every late packet is printed on stdout with its time.
"""
import argparse, fcntl, heapq, ipaddress, os, select, struct, time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--delay-ms", type=float, default=0.0)
ap.add_argument("--duration", type=float, default=60.0)
ap.add_argument("--max-queue", type=int, default=200000)
ap.add_argument("--late-dst", default="")
ap.add_argument("--late-ms", type=float, default=60.0)
ap.add_argument("--late-first", type=int, default=0)
ap.add_argument("--late-every", type=int, default=0)
ap.add_argument("--late-count", type=int, default=1 << 30)
ap.add_argument("--late-min-len", type=int, default=500)
a = ap.parse_args()

dsts = {ipaddress.ip_address(x).packed for x in a.late_dst.split(",") if x}
fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))
delay, late = a.delay_ms / 1000.0, a.late_ms / 1000.0
q = []  # heap of (release time, arrival counter, packet)
mono = time.monotonic
t0 = mono()
end = t0 + a.duration
n_in = n_out = n_over = cnt = seen = n_late = 0
print(f"tun_delay: tun_late dev={a.dev} delay={a.delay_ms}ms late={a.late_ms}ms duration={a.duration}s",
      flush=True)


def dst_len(pkt):
    v = pkt[0] >> 4 if pkt else 0
    if v == 4 and len(pkt) >= 20:
        return pkt[16:20], struct.unpack("!H", pkt[2:4])[0], struct.unpack("!H", pkt[4:6])[0]
    if v == 6 and len(pkt) >= 40:
        return pkt[24:40], 40 + struct.unpack("!H", pkt[4:6])[0], -1
    return b"", len(pkt), -1


def arrive(pkt, now):
    global cnt, seen, n_late
    t = now + delay
    dst, iplen, ident = dst_len(pkt)
    if dst in dsts and iplen >= a.late_min_len:
        seen += 1
        k = seen - a.late_first
        pick = a.late_first > 0 and k >= 0 and (k == 0 or (a.late_every > 0 and k % a.late_every == 0))
        if pick and n_late < a.late_count:
            n_late += 1
            t += late
            print(f"tun_late: {now - t0:.6f} data packet {seen} (IPv4 ID {ident:#06x}) held {a.late_ms} ms",
                  flush=True)
    cnt += 1
    heapq.heappush(q, (t, cnt, pkt))


while True:
    now = mono()
    if now >= end:
        break
    timeout = min(0.2, end - now)
    if q:
        timeout = max(0.0, min(timeout, q[0][0] - now))
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        for _ in range(512):  # bounded batch
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                break
            if len(q) >= a.max_queue:
                n_over += 1
                continue
            n_in += 1
            arrive(pkt, mono())
    now = mono()
    while q and q[0][0] <= now:
        try:
            os.write(fd, heapq.heappop(q)[2])
            n_out += 1
        except OSError:  # e.g. ENOBUFS; count as loss
            n_over += 1
print(f"tun_delay: in={n_in} out={n_out} dropped={n_over} left={len(q)} late={n_late}", flush=True)
