#!/usr/bin/python3
"""Small TCP/UDP client/server used by the pcapdoc capture generators.

  tcpapp.py server --addr A --port P --mode {reqresp,send,recv} [opts]
  tcpapp.py client --addr A --port P --mode {reqresp,send,recv} [opts]
  tcpapp.py udpsend --addr A --port P --size N --count N [--interval S]
  tcpapp.py udprecv --addr A --port P --timeout S

Modes: reqresp = client writes the request (--parts, e.g. 100,200 = two
write() calls) and reads --resp-size bytes; server reads the whole request
(sum of parts) then writes --resp-size bytes.  send = write --bytes then
close; recv = read until EOF (optionally --read-chunk bytes every
--read-interval seconds).  Every run is bounded by --timeout seconds.
"""
import argparse, json, signal, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client", "udpsend", "udprecv"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=5000)
ap.add_argument("--mode", choices=["reqresp", "send", "recv"], default="reqresp")
ap.add_argument("--rcvbuf", type=int, default=0)
ap.add_argument("--sndbuf", type=int, default=0)
ap.add_argument("--nodelay", action="store_true")
ap.add_argument("--parts", default="300")
ap.add_argument("--resp-size", type=int, default=50)
ap.add_argument("--count", type=int, default=10)
ap.add_argument("--think-ms", type=float, default=0.0)
ap.add_argument("--bytes", type=int, default=1 << 20)
ap.add_argument("--read-chunk", type=int, default=65536)
ap.add_argument("--read-interval", type=float, default=0.0)
ap.add_argument("--pauses", default="", help="recv: BYTES:SECS,... stop reading for SECS once BYTES were read")
ap.add_argument("--size", type=int, default=3000)
ap.add_argument("--interval", type=float, default=0.1)
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()

signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET


def opts(s):
    if a.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    if a.sndbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.sndbuf)
    if a.nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def recv_exact(s, n):
    got = 0
    while got < n:
        b = s.recv(n - got)
        if not b:
            return got
        got += len(b)
    return got


def do_send(s):
    buf = b"x" * 65536
    left = a.bytes
    while left > 0:
        left -= s.send(buf[: min(left, len(buf))])
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):  # wait for peer close
        pass
    return {"sent": a.bytes}


def do_recv(s):
    tot = 0
    t0 = time.monotonic()
    pauses = sorted((int(x.split(":")[0]), float(x.split(":")[1])) for x in a.pauses.split(",") if x)
    while True:
        b = s.recv(a.read_chunk)
        if not b:
            break
        tot += len(b)
        while pauses and tot >= pauses[0][0]:
            time.sleep(pauses.pop(0)[1])
        if a.read_interval:
            time.sleep(a.read_interval)
    dt = time.monotonic() - t0
    return {"received": tot, "seconds": round(dt, 3), "mbit_s": round(tot * 8 / dt / 1e6, 3) if dt else None}


parts = [int(x) for x in a.parts.split(",")]
res = {"role": a.role, "mode": a.mode}
if a.role == "server":
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    opts(ls)  # inherited by the accepted socket (rcvbuf before listen)
    ls.bind((a.addr, a.port))
    ls.listen(1)
    s, peer = ls.accept()
    if a.mode == "reqresp":
        n = 0
        reqlen = sum(parts)
        while recv_exact(s, reqlen) == reqlen:
            s.sendall(b"r" * a.resp_size)
            n += 1
        res["requests"] = n
    elif a.mode == "send":
        res.update(do_send(s))
    else:
        res.update(do_recv(s))
    s.close()
elif a.role == "client":
    s = socket.socket(fam, socket.SOCK_STREAM)
    opts(s)  # before connect
    s.connect((a.addr, a.port))
    if a.mode == "reqresp":
        lat = []
        for i in range(a.count):
            t = time.monotonic()
            for p in parts:
                s.sendall(b"q" * p)
            if recv_exact(s, a.resp_size) != a.resp_size:
                break
            lat.append((time.monotonic() - t) * 1000)
            if a.think_ms:
                time.sleep(a.think_ms / 1000)
        res["requests"] = len(lat)
        res["latency_ms"] = [round(x, 2) for x in lat]
    elif a.mode == "send":
        res.update(do_send(s))
    else:
        res.update(do_recv(s))
    s.close()
elif a.role == "udpsend":
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for i in range(a.count):
        s.sendto(bytes([65 + i % 26]) * a.size, (a.addr, a.port))
        time.sleep(a.interval)
    res["sent"] = a.count
else:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((a.addr, a.port))
    s.settimeout(0.5)
    got = []
    end = time.monotonic() + a.timeout
    while time.monotonic() < end:
        try:
            d, peer = s.recvfrom(65536)
            got.append(len(d))
        except socket.timeout:
            pass
    res["received"] = len(got)
    res["sizes"] = got
signal.alarm(0)
print(json.dumps(res), flush=True)
