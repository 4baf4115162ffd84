#!/usr/bin/python3
"""Tiny HTTP/1.x server for pcapdoc golden captures (stdlib only).

GET /            -> 13-byte body "Hello, world\n"
GET /bytes/N     -> N bytes of 'x'
HTTP/1.1 keeps the connection alive unless "Connection: close".
HTTP/1.0 (or close): after the response the server either
  --close-first server : shutdown(SHUT_WR) right away (server = active closer)
  --close-first client : wait for the client's FIN, then close (client = active closer)
--no-accept: listen(backlog) and never call accept().
--accept-after S: listen(backlog), start calling accept() only S seconds later.
Bounded by --timeout seconds (SIGALRM).
"""
import argparse, os, signal, socket, sys, threading

ap = argparse.ArgumentParser()
ap.add_argument('--host', default='0.0.0.0')
ap.add_argument('--port', type=int, default=80)
ap.add_argument('--backlog', type=int, default=16)
ap.add_argument('--no-accept', action='store_true')
ap.add_argument('--close-first', choices=['server', 'client'], default='client')
ap.add_argument('--timeout', type=int, default=60)
ap.add_argument('--max-conns', type=int, default=100000)
ap.add_argument('--accept-after', type=float, default=0, help='listen, then wait S seconds before the first accept()')
args = ap.parse_args()

signal.signal(signal.SIGALRM, lambda *a: os._exit(0))
signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
signal.alarm(args.timeout)


def handle(c):
    buf = b''
    try:
        while True:
            while b'\r\n\r\n' not in buf:
                d = c.recv(65536)
                if not d:
                    c.close()
                    return
                buf += d
            head, buf = buf.split(b'\r\n\r\n', 1)
            method, path, ver = head.split(b'\r\n')[0].decode().split()
            if path.startswith('/bytes/'):
                body = b'x' * int(path[len('/bytes/'):])
            else:
                body = b'Hello, world\n'
            keep = ver == 'HTTP/1.1' and b'connection: close' not in head.lower()
            hdr = '%s 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n' % (ver, len(body))
            if not keep:
                hdr += 'Connection: close\r\n'
            c.sendall(hdr.encode() + b'\r\n' + body)
            if keep:
                continue
            if args.close_first == 'server':
                c.shutdown(socket.SHUT_WR)
            # drain until the peer's FIN, then close (no RST on unread data)
            c.settimeout(10)
            while c.recv(65536):
                pass
            c.close()
            return
    except OSError:
        c.close()


fam = socket.AF_INET6 if ':' in args.host else socket.AF_INET
s = socket.socket(fam, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((args.host, args.port))
s.listen(args.backlog)
print('listening', args.host, args.port, flush=True)
if args.no_accept:
    signal.pause()
if args.accept_after:
    import time
    time.sleep(args.accept_after)
n = 0
while n < args.max_conns:
    c, a = s.accept()
    n += 1
    threading.Thread(target=handle, args=(c,), daemon=True).start()
signal.pause()
