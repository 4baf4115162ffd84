#!/usr/bin/python3
"""tiny-writes helper: server reads everything and counts it; client sets
TCP_NODELAY and writes COUNT chunks of SIZE bytes with send(), no sleep."""
import argparse, json, signal, socket, sys
ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=5102)
ap.add_argument("--size", type=int, default=20)
ap.add_argument("--count", type=int, default=5000)
ap.add_argument("--timeout", type=int, default=30)
a = ap.parse_args()
signal.alarm(a.timeout)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
if a.role == "server":
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port)); ls.listen(1)
    s, _ = ls.accept()
    tot = 0
    while True:
        b = s.recv(65536)
        if not b:
            break
        tot += len(b)
    s.close()
    print(json.dumps({"role": "server", "received": tot}), flush=True)
else:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((a.addr, a.port))
    chunk = b"w" * a.size
    for _ in range(a.count):
        s.sendall(chunk)
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    s.close()
    print(json.dumps({"role": "client", "writes": a.count, "bytes": a.count * a.size}), flush=True)
