#!/usr/bin/python3
"""dnslike.py server|client ADDR PORT: DNS-like exchange over UDP. The client
sends COUNT 40-byte queries (2-byte id + padding), 200 ms apart, and waits up
to 1 s for each answer, retrying once on timeout; the server answers every
query with RESP bytes (default 4000: fragmented on a 1500-byte path).
Bounded by --timeout."""
import socket, sys, time, argparse, struct
ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("addr"); ap.add_argument("port", type=int)
ap.add_argument("--count", type=int, default=10)
ap.add_argument("--resp", type=int, default=4000)
ap.add_argument("--timeout", type=float, default=15)
a = ap.parse_args()
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
t0 = time.time()
if a.role == "server":
    s.bind((a.addr, a.port)); s.settimeout(0.5)
    n = 0
    while time.time() - t0 < a.timeout:
        try:
            q, peer = s.recvfrom(2048)
        except socket.timeout:
            continue
        s.sendto(q[:2] + b"R" * (a.resp - 2), peer); n += 1
    print('{"role": "server", "answered": %d}' % n)
else:
    s.settimeout(1.0)
    ok = retried = failed = 0
    for i in range(a.count):
        if time.time() - t0 > a.timeout: break
        q = struct.pack("!H", i) + b"Q" * 38
        for attempt in range(2):
            s.sendto(q, (a.addr, a.port))
            try:
                while True:
                    r, _ = s.recvfrom(65535)
                    if r[:2] == q[:2]: break
                ok += 1; break
            except socket.timeout:
                if attempt == 0: retried += 1
                else: failed += 1
        time.sleep(0.2)
    print('{"role": "client", "ok": %d, "retried": %d, "failed": %d}' % (ok, retried, failed))
