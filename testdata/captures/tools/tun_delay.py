#!/usr/bin/python3
"""TUN delay forwarder for pcapdoc golden captures.

Opens an existing (persistent) TUN device (IFF_TUN|IFF_NO_PI), reads every
packet the kernel routes into it, holds it for --delay-ms and writes it back
to the same device, where the kernel forwards it to its real destination
(main routing table).  Runs at most --duration seconds.  No packet is ever
dropped by this program (the queue is unbounded up to --max-queue packets).
With --hold-every N, every Nth packet of at least --hold-min-bytes bytes is
held --hold-ms longer, so the packets behind it overtake it (reordering
without netem); off by default.
"""
import argparse, collections, fcntl, os, select, signal, struct, sys, time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--delay-ms", type=float, default=20.0)
ap.add_argument("--duration", type=float, default=60.0)
ap.add_argument("--max-queue", type=int, default=200000)
ap.add_argument("--hold-every", type=int, default=0)
ap.add_argument("--hold-ms", type=float, default=0.0)
ap.add_argument("--hold-min-bytes", type=int, default=0)
a = ap.parse_args()

fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))
delay = a.delay_ms / 1000.0
q = collections.deque()
late = collections.deque()  # the held packets: one fixed extra delay, so in time order too
hold = a.hold_ms / 1000.0
mono = time.monotonic
end = mono() + a.duration


def stop(signum, frame):  # SIGINT/SIGTERM end the run with the counts printed
    global end
    end = 0.0


signal.signal(signal.SIGINT, stop)
signal.signal(signal.SIGTERM, stop)
n_in = n_out = n_over = n_big = n_held = 0
print(f"tun_delay: dev={a.dev} delay={a.delay_ms}ms duration={a.duration}s"
      + (f" hold-every={a.hold_every} hold={a.hold_ms}ms min-bytes={a.hold_min_bytes}" if a.hold_every else ""),
      flush=True)
while True:
    now = mono()
    if now >= end:
        break
    timeout = min(0.2, end - now)
    for w in (q, late):
        if w:
            timeout = max(0.0, min(timeout, w[0][0] - now))
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        t = mono() + delay
        for _ in range(512):  # bounded batch
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                break
            if len(q) + len(late) >= a.max_queue:
                n_over += 1
                continue
            n_in += 1
            if a.hold_every and len(pkt) >= a.hold_min_bytes:
                n_big += 1
                if n_big % a.hold_every == 0:
                    late.append((t + hold, pkt))
                    n_held += 1
                    continue
            q.append((t, pkt))
    now = mono()
    for w in (q, late):
        while w and w[0][0] <= now:
            try:
                os.write(fd, w.popleft()[1])
                n_out += 1
            except OSError as e:  # e.g. ENOBUFS; count as loss
                n_over += 1
print(f"tun_delay: in={n_in} out={n_out} dropped={n_over} left={len(q) + len(late)}"
      + (f" held={n_held}" if a.hold_every else ""), flush=True)
