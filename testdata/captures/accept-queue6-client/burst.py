#!/usr/bin/python3
"""burst.py HOST PORT SRC1,SRC2,.. --at T1,T2,...  [--wait S] [--prime-udp B]
IPv4 or IPv6 (HOST with ':'). Open one connection per --at entry (start offset in seconds from t0, one thread each);
connection i binds source address SRCS[i % len(SRCS)]. Each sends one small HTTP/1.0
request as soon as connect() returns, waits up to --wait seconds for a reply, then closes.
--prime-udp B: first send one UDP datagram of B payload bytes to HOST:9 (drains a tbf bucket).
Prints one line per connection. Bounded: every socket has a timeout."""
import argparse, errno, socket, threading, time
ap = argparse.ArgumentParser()
ap.add_argument('host'); ap.add_argument('port', type=int)
ap.add_argument('srcs')
ap.add_argument('--at', required=True)
ap.add_argument('--wait', type=float, default=8)
ap.add_argument('--prime-udp', type=int, default=0)
a = ap.parse_args()
srcs = a.srcs.split(',')
at = [float(x) for x in a.at.split(',')]
out = []
if a.prime_udp:
    u = socket.socket(socket.AF_INET6 if ':' in a.host else socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b'p' * a.prime_udp, (a.host, 9)); u.close()
t0 = time.time()
def one(i, src, when):
    time.sleep(max(0, t0 + when - time.time()))
    s = socket.socket(socket.AF_INET6 if ':' in a.host else socket.AF_INET); s.settimeout(a.wait)
    s.bind((src, 0))
    r = 'conn %d %s:%d start@%.3f ' % (i, src, s.getsockname()[1], time.time() - t0)
    try:
        s.connect((a.host, a.port))
        r += 'connected@%.2f ' % (time.time() - t0)
        s.sendall(b'GET / HTTP/1.0\r\nHost: %s\r\n\r\n' % a.host.encode())
        d = s.recv(4096)
        r += 'reply %d bytes@%.2f' % (len(d), time.time() - t0) if d else 'EOF@%.2f' % (time.time() - t0)
    except OSError as e:
        r += 'error %s@%.2f' % (errno.errorcode.get(e.errno, str(e)), time.time() - t0)
    s.close()
    out.append((i, r))
th = [threading.Thread(target=one, args=(i + 1, srcs[i % len(srcs)], w)) for i, w in enumerate(at)]
for t in th: t.start()
for t in th: t.join(a.wait + max(at) + 5)
for i, r in sorted(out): print(r)
