#!/usr/bin/python3
"""TUN delay forwarder with path misbehaviours, for pcapdoc regression captures.

Same contract and options as tun_delay.py (opens an existing persistent TUN
device, IFF_TUN|IFF_NO_PI, holds every packet --delay-ms and writes it back,
whence the kernel forwards it; never drops; exits after --duration s), plus
three deterministic misbehaviours, all off by default:

Reordering (--reorder-dst A[,B...]): among the packets to A of at least
  --reorder-min-len bytes (IP length; default 500 = data, not pure ACKs), an
  event holds back --reorder-hold K consecutive packets; the next one is
  released at its normal time and the K held ones right behind it, in their
  order (microseconds later): one later packet overtakes K earlier ones.
  Held packets are let go in order after --reorder-max-hold-ms if nothing
  comes to overtake them. An event starts
    --reorder-every N     at the N-th packet and every N-th after it, and/or
    --reorder-idle-ms G   at the 2nd packet after a pause of at least G ms
                          in TCP packets of any size to A (the first flight
                          of a reply or of a new burst; not after a SYN or
                          SYN-ACK: never the connection's first flight)
  at most --reorder-count times per destination.
Stall (--freeze-dst A --freeze-ms E and one trigger): from the trigger on,
  every packet to A that arrives within E ms is released together at
  trigger + E ms (plus the normal delay), in order; later packets flow
  normally. Triggers:
    --freeze-on-synack        the first SYN-ACK to A (it is held too)
    --freeze-after-data N[,M..]  the N-th (M-th ...) packet of at least 500
                              bytes to any other address: one stall each
Late SYN-ACK (--hold-synack-ms H): the first SYN-ACK (to any address) is
  released H ms late; every other packet, a second SYN-ACK included, keeps
  the normal delay (and may overtake it).
Events are printed on stdout with their time since the start.
"""
import argparse, fcntl, heapq, ipaddress, os, select, struct, time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000

ap = argparse.ArgumentParser()
ap.add_argument("--dev", default="tun0")
ap.add_argument("--delay-ms", type=float, default=20.0)
ap.add_argument("--duration", type=float, default=60.0)
ap.add_argument("--max-queue", type=int, default=200000)
ap.add_argument("--reorder-dst", default="")
ap.add_argument("--reorder-every", type=int, default=0)
ap.add_argument("--reorder-idle-ms", type=float, default=0.0)
ap.add_argument("--reorder-hold", type=int, default=12)
ap.add_argument("--reorder-count", type=int, default=1 << 30)
ap.add_argument("--reorder-min-len", type=int, default=500)
ap.add_argument("--reorder-max-hold-ms", type=float, default=20.0)
ap.add_argument("--freeze-dst", default="")
ap.add_argument("--freeze-ms", type=float, default=0.0)
ap.add_argument("--freeze-on-synack", action="store_true")
ap.add_argument("--freeze-after-data", default="")
ap.add_argument("--hold-synack-ms", type=float, default=0.0)
a = ap.parse_args()


def parse(pkt):
    """(destination address bytes, IP length, TCP flags or -1)"""
    if not pkt:
        return b"", 0, -1
    v = pkt[0] >> 4
    if v == 4 and len(pkt) >= 20:
        ihl = (pkt[0] & 15) * 4
        flags = pkt[ihl + 13] if pkt[9] == 6 and len(pkt) >= ihl + 14 else -1
        return pkt[16:20], struct.unpack("!H", pkt[2:4])[0], flags
    if v == 6 and len(pkt) >= 40:
        flags = pkt[40 + 13] if pkt[6] == 6 and len(pkt) >= 54 else -1
        return pkt[24:40], 40 + struct.unpack("!H", pkt[4:6])[0], flags
    return b"", len(pkt), -1


class Reo:
    """reordering state toward one destination"""

    def __init__(self, name):
        self.name = name
        self.seen = 0  # data packets so far
        self.held = []  # packets held back in the current event
        self.since = 0.0  # when the current event began
        self.last = None  # arrival of the previous TCP packet (any size)
        self.last_syn = False  # ... and whether it was a SYN or SYN-ACK
        self.after_idle = -1  # data packets since the last pause (-1: none yet)
        self.events = 0


reo = {ipaddress.ip_address(x).packed: Reo(x) for x in a.reorder_dst.split(",") if x}
frz_dst = ipaddress.ip_address(a.freeze_dst).packed if a.freeze_dst else None
fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), IFF_TUN | IFF_NO_PI))
delay = a.delay_ms / 1000.0
max_hold = a.reorder_max_hold_ms / 1000.0
q = []  # heap of (release time, arrival counter, packet): FIFO among equal times
mono = time.monotonic
t_start = mono()
end = t_start + a.duration
n_in = n_out = n_over = cnt = 0
frz_until = None  # while stalled: when the stall ends
frz_done = False
frz_data = 0
frz_at = sorted(int(x) for x in a.freeze_after_data.split(",") if x)
synack_held = False
# the first word is what vb_dr_up waits for
print(f"tun_delay: tun_shape dev={a.dev} delay={a.delay_ms}ms duration={a.duration}s", flush=True)


def log(msg):
    print(f"tun_shape: {mono() - t_start:.6f} {msg}", flush=True)


def push(t, pkt):
    global cnt
    cnt += 1
    heapq.heappush(q, (t, cnt, pkt))


def let_go(r, now):
    for p in r.held:
        push(now + delay, p)
    log(f"reorder to {r.name}: {len(r.held)} held packets let go, nothing overtook them")
    r.held = []


def arrive(pkt, now):
    global frz_until, frz_done, frz_data, synack_held
    dst, iplen, flags = parse(pkt)
    t = now + delay
    if a.hold_synack_ms and not synack_held and flags >= 0 and (flags & 0x12) == 0x12:
        synack_held = True
        push(t + a.hold_synack_ms / 1000.0, pkt)
        log(f"first SYN-ACK held {a.hold_synack_ms} ms")
        return
    if frz_until is not None and now >= frz_until:
        frz_until = None
    if frz_dst and not frz_done:
        if a.freeze_on_synack and frz_until is None and dst == frz_dst and flags >= 0 and (flags & 0x12) == 0x12:
            frz_until, frz_done = now + a.freeze_ms / 1000.0, True
            log(f"stall toward {a.freeze_dst} for {a.freeze_ms} ms (first SYN-ACK)")
        elif frz_at and dst != frz_dst and iplen >= 500:
            frz_data += 1
            if frz_data in frz_at and frz_until is None:
                frz_until = now + a.freeze_ms / 1000.0
                frz_done = frz_data >= frz_at[-1]
                log(f"stall toward {a.freeze_dst} for {a.freeze_ms} ms (after {frz_data} data packets)")
    if frz_until is not None and dst == frz_dst:
        push(frz_until + delay, pkt)
        return
    r = reo.get(dst)
    if r is None or flags < 0:
        push(t, pkt)
        return
    pause = (a.reorder_idle_ms > 0 and r.last is not None and not r.last_syn
             and now - r.last >= a.reorder_idle_ms / 1000.0)
    r.last, r.last_syn = now, bool(flags & 0x02)
    if iplen < a.reorder_min_len:
        push(t, pkt)
        return
    r.seen += 1
    if pause:
        r.after_idle = 0
    if r.after_idle >= 0:
        r.after_idle += 1
    if r.held:
        if len(r.held) < a.reorder_hold:
            r.held.append(pkt)
            return
        push(t, pkt)  # the overtaking packet, then the held ones
        for p in r.held:
            push(t, p)
        log(f"reorder to {r.name}: 1 packet overtook {len(r.held)} (held {1000 * (now - r.since):.3f} ms)")
        r.held = []
        return
    start = (a.reorder_every > 0 and r.seen % a.reorder_every == 0) or (
        a.reorder_idle_ms > 0 and r.after_idle == 2)
    if start and r.events < a.reorder_count:
        r.events += 1
        r.since = now
        r.held.append(pkt)
        return
    push(t, pkt)


while True:
    now = mono()
    if now >= end:
        break
    timeout = min(0.2, end - now)
    if q:
        timeout = min(timeout, q[0][0] - now)
    for r in reo.values():
        if r.held:
            timeout = min(timeout, r.since + max_hold - now)
    r_, _, _ = select.select([fd], [], [], max(0.0, timeout))
    if r_:
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
    for r in reo.values():
        if r.held and now - r.since >= max_hold:
            let_go(r, now)
    while q and q[0][0] <= now:
        try:
            os.write(fd, heapq.heappop(q)[2])
            n_out += 1
        except OSError:  # e.g. ENOBUFS; count as loss
            n_over += 1
held = sum(len(r.held) for r in reo.values())
ev = ",".join(f"{r.name}:{r.events}" for r in reo.values())
print(f"tun_shape: in={n_in} out={n_out} dropped={n_over} left={len(q) + held} reorder_events={ev}", flush=True)
