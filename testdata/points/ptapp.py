#!/usr/bin/python3
"""Two-point capture app: `server ADDR PORT CONNS BYTES [UPLOAD]` answers
CONNS connections, each with BYTES after a request of 100 + UPLOAD bytes
(UPLOAD 0 by default); `client ADDR PORT CONNS [UPLOAD]` makes them one
after the other. Bounded by alarm(120)."""
import signal, socket, sys, time

signal.alarm(120)
role, addr, port, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if role == "server":
    size = int(sys.argv[5])
    request = 100 + (int(sys.argv[6]) if len(sys.argv) > 6 else 0)
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(16)
    for _ in range(conns):
        s, _ = ls.accept()
        got = 0
        while got < request:
            b = s.recv(min(65536, request - got))
            if not b:
                break
            got += len(b)
        s.sendall(b"x" * size)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
        s.close()
else:
    request = 100 + (int(sys.argv[5]) if len(sys.argv) > 5 else 0)
    for i in range(conns):
        s = socket.socket()
        s.settimeout(60)
        s.connect((addr, port))
        s.sendall(b"q" * request)
        n = 0
        while True:
            b = s.recv(65536)
            if not b:
                break
            n += len(b)
        s.close()
        print("conn", i, "received", n, flush=True)
        time.sleep(0.2)
