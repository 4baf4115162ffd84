#!/usr/bin/python3
"""shortconns.py HOST PORT N RATE: N short connections, one request each, RATE new ones per
second (each in its own thread, so a slow path overlaps them): connect (kernel-chosen source
port), send "GET / HTTP/1.0", read tools/httpd.py's 13-byte body, close first (the client
holds TIME_WAIT, so the kernel never hands out a port still in it). Prints one JSON line: done, failed, distinct source ports, seconds. Bounded: 60 s."""
import json, signal, socket, sys, threading, time

signal.signal(signal.SIGALRM, lambda *x: sys.exit(3))
signal.alarm(60)
host, port, n, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
ports, lock = set(), threading.Lock()
res = {'done': 0, 'failed': 0}


def one():
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect((host, port))
        with lock:
            ports.add(s.getsockname()[1])
        s.sendall(b'GET / HTTP/1.0\r\nHost: x\r\n\r\n')
        buf = b''
        while not buf.endswith(b'Hello, world\n'):
            d = s.recv(4096)
            if not d:
                break
            buf += d
        ok = 'done'
    except OSError:
        ok = 'failed'
    s.close()
    with lock:
        res[ok] += 1


t0 = time.time()
th = []
for i in range(n):
    time.sleep(max(0, t0 + i / rate - time.time()))
    t = threading.Thread(target=one)
    t.start()
    th.append(t)
    th = [x for x in th if x.is_alive()]
for t in th:
    t.join()
res['ports'] = len(ports)
res['seconds'] = round(time.time() - t0, 2)
print(json.dumps(res), flush=True)
