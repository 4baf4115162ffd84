#!/usr/bin/python3
"""Two-point capture app: `server ADDR PORT CONNS BYTES` answers CONNS
connections, each with BYTES after a 100-byte request; `client ADDR PORT
CONNS` makes them one after the other. Bounded by alarm(30)."""
import signal, socket, sys, time

signal.alarm(120)
role, addr, port, conns = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if role == "server":
    size = int(sys.argv[5])
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(16)
    for _ in range(conns):
        s, _ = ls.accept()
        got = 0
        while got < 100:
            b = s.recv(100 - got)
            if not b:
                break
            got += len(b)
        s.sendall(b"x" * size)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
        s.close()
else:
    for i in range(conns):
        s = socket.socket()
        s.settimeout(60)
        s.connect((addr, port))
        s.sendall(b"q" * 100)
        n = 0
        while True:
            b = s.recv(65536)
            if not b:
                break
            n += len(b)
        s.close()
        print("conn", i, "received", n, flush=True)
        time.sleep(0.2)
