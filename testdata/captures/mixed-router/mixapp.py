#!/usr/bin/python3
"""mixapp.py: traffic for the mixed-router capture (every run bounded by --timeout).
  server ADDR           : HTTP-like on 80 (keep-alive, or close on 'Connection: close'),
                          bulk on 8080 (GET -> --bulk bytes, then close), port 8443 (same as 80),
                          DNS-like UDP answers on 53
  keepalive ADDR        : one connection, --count GETs, --think-ms between them
  short ADDR            : --count HTTP/1.0 connections, --think-ms between them
  bulk ADDR             : one GET on 8080, read to EOF
  dns ADDR              : --count UDP queries, --think-ms between them
  blocked ADDR          : connect() to 8443 with --connect-timeout (SYNs dropped by nft)
"""
import argparse, json, signal, socket, struct, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "keepalive", "short", "bulk", "dns", "blocked"])
ap.add_argument("addr")
ap.add_argument("--count", type=int, default=10)
ap.add_argument("--think-ms", type=float, default=100)
ap.add_argument("--resp", type=int, default=1800)
ap.add_argument("--bulk", type=int, default=5_000_000)
ap.add_argument("--connect-timeout", type=float, default=6.0)
ap.add_argument("--timeout", type=float, default=40.0)
a = ap.parse_args()
signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)


def read_req(f):
    lines = []
    while True:
        ln = f.readline()
        if not ln:
            return None
        if ln in (b"\r\n", b"\n"):
            return lines
        lines.append(ln)


def http_conn(c, bulk):
    f = c.makefile("rb")
    try:
        while True:
            req = read_req(f)
            if req is None:
                break
            close = any(b"close" in l.lower() for l in req) or req[0].endswith(b"HTTP/1.0\r\n")
            n = a.bulk if bulk else a.resp
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n)
            buf = b"x" * 65536
            while n > 0:
                k = min(n, len(buf))
                c.sendall(buf[:k])
                n -= k
            if close or bulk:
                break
    except OSError:
        pass
    c.close()


def listener(port, bulk):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, port))
    ls.listen(128)
    while True:
        c, _ = ls.accept()
        threading.Thread(target=http_conn, args=(c, bulk), daemon=True).start()


def dns_server():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a.addr, 53))
    while True:
        q, peer = s.recvfrom(2048)
        # answer: flags 0x8180, 1 question, 1 answer A 10.66.2.2
        ans = q[:2] + b"\x81\x80" + q[4:6] + b"\x00\x01\x00\x00\x00\x00" + q[12:] + \
            b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + socket.inet_aton("10.66.2.2")
        s.sendto(ans, peer)


def get(s, path, close):
    s.sendall(b"GET %s HTTP/1.1\r\nHost: srv\r\n%s\r\n" % (path, b"Connection: close\r\n" if close else b""))
    f = s.makefile("rb")
    hdr = read_req(f)
    n = int([l for l in hdr if l.lower().startswith(b"content-length")][0].split(b":")[1])
    got = 0
    while got < n:
        b = f.read1(min(65536, n - got))
        if not b:
            break
        got += len(b)
    return got


res = {"role": a.role}
if a.role == "server":
    for port, bulk in ((80, False), (8443, False), (8080, True)):
        threading.Thread(target=listener, args=(port, bulk), daemon=True).start()
    threading.Thread(target=dns_server, daemon=True).start()
    time.sleep(a.timeout)
elif a.role == "keepalive":
    s = socket.create_connection((a.addr, 80))
    n = 0
    for i in range(a.count):
        n += get(s, b"/api/%d" % i, False)
        time.sleep(a.think_ms / 1000)
    s.close()
    res["bytes"] = n
elif a.role == "short":
    n = 0
    for i in range(a.count):
        s = socket.create_connection((a.addr, 80))
        n += get(s, b"/short/%d" % i, True)
        s.close()
        time.sleep(a.think_ms / 1000)
    res["bytes"] = n
elif a.role == "bulk":
    t = time.monotonic()
    s = socket.create_connection((a.addr, 8080))
    res["bytes"] = get(s, b"/big.bin", False)
    res["seconds"] = round(time.monotonic() - t, 3)
    s.close()
elif a.role == "dns":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    ok = 0
    for i in range(a.count):
        name = b"".join(bytes([len(p)]) + p for p in (b"svc%d" % i, b"example", b"internal")) + b"\0"
        s.sendto(struct.pack(">HHHHHH", 0x1000 + i, 0x0100, 1, 0, 0, 0) + name + b"\0\1\0\1", (a.addr, 53))
        try:
            s.recvfrom(2048)
            ok += 1
        except socket.timeout:
            pass
        time.sleep(a.think_ms / 1000)
    res["answered"] = ok
elif a.role == "blocked":
    t = time.monotonic()
    try:
        socket.create_connection((a.addr, 8443), timeout=a.connect_timeout)
        res["result"] = "connected"
    except OSError as e:
        res["result"] = type(e).__name__
    res["seconds"] = round(time.monotonic() - t, 3)
signal.alarm(0)
print(json.dumps(res), flush=True)
