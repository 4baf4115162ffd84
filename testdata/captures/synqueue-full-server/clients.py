#!/usr/bin/python3
"""clients.py SERVER PORT [--t0 EPOCH] --at SRC:T[:GIVEUP],... : real clients for the SYN-queue captures.

Each entry opens one connection from source address SRC at T seconds after --t0 (a wall-clock
time.time(); default now), sends "GET / HTTP/1.0", reads the answer (tools/httpd.py's
"Hello, world" body) and closes first. GIVEUP (s,
default 30): the application's connect timeout (the socket is closed, nothing more is sent).
Prints one JSON line per connection (source, result, connect time). Bounded by 40 s.
"""
import json, signal, socket, sys, threading, time

signal.signal(signal.SIGALRM, lambda *x: sys.exit(3))
signal.alarm(40)
host, port = sys.argv[1], int(sys.argv[2])
plan = [e.split(':') for e in sys.argv[sys.argv.index('--at') + 1].split(',')]
t0 = float(sys.argv[sys.argv.index('--t0') + 1]) if '--t0' in sys.argv else time.time()
lock = threading.Lock()


def one(src, at, giveup):
    time.sleep(max(0, t0 + at - time.time()))
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(giveup)
    t = time.time()
    try:
        s.connect((host, port))
        res = 'connected'
        s.settimeout(10)
        s.sendall(b'GET / HTTP/1.0\r\nHost: x\r\n\r\n')
        buf = b''
        while not buf.endswith(b'Hello, world\n'):
            d = s.recv(4096)
            if not d:
                break
            buf += d
    except OSError as e:
        res = type(e).__name__
    ct = time.time() - t
    s.close()
    with lock:
        print(json.dumps({'src': src, 'at': at, 'result': res, 'seconds': round(ct, 3)}), flush=True)


th = [threading.Thread(target=one, args=(e[0], float(e[1]), float(e[2]) if len(e) > 2 else 30.0)) for e in plan]
for x in th:
    x.start()
for x in th:
    x.join()
