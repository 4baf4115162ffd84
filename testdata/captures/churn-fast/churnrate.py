#!/usr/bin/python3
"""churnrate.py HOST PORT N RATE: N HTTP/1.0 GETs, one fresh connection each (ephemeral port from
the kernel), paced at RATE connections per second; the client closes after the reply."""
import socket, sys, time
host, port, n, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
t0 = time.time(); ports = set()
for i in range(n):
    time.sleep(max(0, t0 + i / rate - time.time()))
    s = socket.socket(); s.settimeout(5)
    s.connect((host, port)); ports.add(s.getsockname()[1])
    s.sendall(b'GET / HTTP/1.0\r\nHost: x\r\n\r\n')
    buf = b''
    while True:
        d = s.recv(4096)
        if not d: break
        buf += d
        if b'\r\n\r\n' in buf and buf.endswith(b'Hello, world\n'): break
    s.close()
print('done %d connections in %.2f s, %d distinct ports' % (n, time.time() - t0, len(ports)))
