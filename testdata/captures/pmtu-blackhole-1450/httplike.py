#!/usr/bin/python3
"""httplike.py server|client ADDR PORT: the client sends a 100-byte request;
the server answers with a 200-byte header write, then BODY bytes in 64 KiB
writes. Every run is bounded by --timeout."""
import socket, sys, time, argparse
ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("addr"); ap.add_argument("port", type=int)
ap.add_argument("--body", type=int, default=200000)
ap.add_argument("--timeout", type=float, default=15)
a = ap.parse_args()
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
if a.role == "server":
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port)); ls.listen(4); ls.settimeout(a.timeout)
    c, _ = ls.accept(); c.settimeout(a.timeout)
    c.recv(4096)
    c.sendall(b"H" * 200)
    time.sleep(0.05)
    sent = 0
    try:
        while sent < a.body:
            n = min(65536, a.body - sent); c.sendall(b"B" * n); sent += n
        c.shutdown(socket.SHUT_WR)
        c.recv(10)
    except OSError as e:
        print("server:", e)
    print('{"role": "server", "sent": %d}' % sent)
else:
    s = socket.create_connection((a.addr, a.port), timeout=a.timeout)
    s.sendall(b"G" * 100)
    got = 0; t0 = time.time()
    try:
        while got < 200 + a.body and time.time() - t0 < a.timeout:
            d = s.recv(65536)
            if not d: break
            got += len(d)
    except OSError as e:
        print("client:", e)
    s.close()
    print('{"role": "client", "received": %d, "seconds": %.3f}' % (got, time.time() - t0))
