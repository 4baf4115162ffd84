#!/usr/bin/python3
"""Request/response over one TCP connection, with the server's answers
either held by TCP_CORK or delayed by think time.

  corkapp.py server --addr A [--port 8080] [--cork] [--think-ms LO,HI] [--seed N]
  corkapp.py client --addr A [--port 8080] [--requests 20] [--pause-ms 50]
                    [--sizes 300,900,3000,...]

Client: connects, then for each request writes 100 bytes: 4-byte response
length (big endian, taken in turn from --sizes) and padding; reads the whole
response, waits --pause-ms, next. Prints one JSON line (per-request times).
Server: accepts one connection; with --cork sets TCP_CORK once and never
clears it, so the last partial segment of each response waits for the
kernel (the zero-window-probe timer, max(RTO, 200 ms)); with --think-ms
LO,HI it sleeps a uniformly random time in [LO, HI] ms before each answer
(TCP_CORK off). Each response is written with one sendall(). Bounded by
--timeout (SIGALRM).
"""
import argparse, json, random, signal, socket, struct, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=8080)
ap.add_argument("--cork", action="store_true")
ap.add_argument("--think-ms", default="")
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--requests", type=int, default=20)
ap.add_argument("--pause-ms", type=float, default=50.0)
ap.add_argument("--sizes", default="300,900,3000,150,1300,5000")
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()
signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
res = {"role": a.role}


def read_n(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            break
        b += c
    return b


if a.role == "server":
    rnd = random.Random(a.seed)
    lo = hi = 0.0
    if a.think_ms:
        lo, hi = (float(x) for x in a.think_ms.split(","))
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    ls.listen(4)
    c, _ = ls.accept()
    if a.cork:
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    n, thinks = 0, []
    while True:
        req = read_n(c, 100)
        if len(req) < 100:
            break
        size = struct.unpack("!I", req[:4])[0]
        if hi > 0:
            t = rnd.uniform(lo, hi)
            thinks.append(round(t, 1))
            time.sleep(t / 1000)
        c.sendall(b"r" * size)
        n += 1
    c.close()
    res.update({"answered": n, "cork": a.cork, "think_ms": thinks})
else:
    sizes = [int(x) for x in a.sizes.split(",")]
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.connect((a.addr, a.port))
    times = []
    for i in range(a.requests):
        size = sizes[i % len(sizes)]
        t0 = time.monotonic()
        s.sendall(struct.pack("!I", size) + b"q" * 96)
        got = read_n(s, size)
        times.append([size, round((time.monotonic() - t0) * 1000, 1)])
        if len(got) < size:
            break
        time.sleep(a.pause_ms / 1000)
    s.close()
    res.update({"exchanges": times})
signal.alarm(0)
print(json.dumps(res), flush=True)
