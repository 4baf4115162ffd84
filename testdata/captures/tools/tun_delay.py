#!/usr/bin/python3
"""TUN delay forwarder for pcapdoc golden captures.

Opens an existing (persistent) TUN device (IFF_TUN|IFF_NO_PI), reads every
packet the kernel routes into it, holds it for --delay-ms and writes it back
to the same device, where the kernel forwards it to its real destination
(main routing table).  Runs at most --duration seconds.  No packet is ever
dropped by this program (the queue is unbounded up to --max-queue packets).
"""
import argparse, collections, fcntl, os, select, struct, sys, time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--delay-ms", type=float, default=20.0)
ap.add_argument("--duration", type=float, default=60.0)
ap.add_argument("--max-queue", type=int, default=200000)
a = ap.parse_args()

fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))
delay = a.delay_ms / 1000.0
q = collections.deque()
mono = time.monotonic
end = mono() + a.duration
n_in = n_out = n_over = 0
print(f"tun_delay: dev={a.dev} delay={a.delay_ms}ms duration={a.duration}s", flush=True)
while True:
    now = mono()
    if now >= end:
        break
    timeout = min(0.2, end - now)
    if q:
        timeout = max(0.0, min(timeout, q[0][0] - now))
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        t = mono() + delay
        for _ in range(512):  # bounded batch
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                break
            if len(q) >= a.max_queue:
                n_over += 1
                continue
            q.append((t, pkt))
            n_in += 1
    now = mono()
    while q and q[0][0] <= now:
        try:
            os.write(fd, q.popleft()[1])
            n_out += 1
        except OSError as e:  # e.g. ENOBUFS; count as loss
            n_over += 1
print(f"tun_delay: in={n_in} out={n_out} dropped={n_over} left={len(q)}", flush=True)
