#!/usr/bin/python3
"""Tiny HTTP client for pcapdoc golden captures (stdlib only).

client.py get HOST PORT [--path P] [--ver 1.0|1.1] [--n N] [--sport S] [--wait-eof]
    one connection, N requests (keep-alive when ver 1.1), read each response
    (Content-Length), then close.  --wait-eof: read until the server's FIN first.
client.py churn HOST PORT --n N [--deadline S]
    N sequential HTTP/1.0 connections, client closes first; retries (bounded)
    while the local port range is exhausted (EADDRNOTAVAIL).
client.py connect HOST PORT    just connect(); print the result (errno name)
"""
import argparse, errno, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument('mode', choices=['get', 'churn', 'connect'])
ap.add_argument('host')
ap.add_argument('port', type=int)
ap.add_argument('--path', default='/')
ap.add_argument('--ver', default='1.1')
ap.add_argument('--n', type=int, default=1)
ap.add_argument('--sport', type=int, default=0)
ap.add_argument('--wait-eof', action='store_true')
ap.add_argument('--deadline', type=float, default=60)
ap.add_argument('--timeout', type=float, default=30)
args = ap.parse_args()
fam = socket.AF_INET6 if ':' in args.host else socket.AF_INET


def sock():
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(args.timeout)
    if args.sport:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('', args.sport))
    return s


def read_resp(s):
    buf = b''
    while b'\r\n\r\n' not in buf:
        d = s.recv(65536)
        if not d:
            raise EOFError('eof in header')
        buf += d
    head, body = buf.split(b'\r\n\r\n', 1)
    cl = 0
    for line in head.split(b'\r\n')[1:]:
        k, v = line.split(b':', 1)
        if k.strip().lower() == b'content-length':
            cl = int(v)
    while len(body) < cl:
        d = s.recv(65536)
        if not d:
            raise EOFError('eof in body')
        body += d
    return head.split(b'\r\n')[0].decode(), len(body)


def req(s, path, ver, last):
    h = 'GET %s HTTP/%s\r\nHost: %s\r\nUser-Agent: pcapdoc-gen/1\r\n' % (path, ver, args.host)
    s.sendall((h + '\r\n').encode())


if args.mode == 'connect':
    s = sock()
    try:
        s.connect((args.host, args.port))
        print('connected', s.getsockname())
    except OSError as e:
        print('connect failed:', errno.errorcode.get(e.errno, e.errno), e)
    s.close()
elif args.mode == 'get':
    s = sock()
    s.connect((args.host, args.port))
    print('connected from', s.getsockname(), flush=True)
    for i in range(args.n):
        req(s, args.path, args.ver, i == args.n - 1)
        print(read_resp(s), flush=True)
    if args.wait_eof:
        while s.recv(65536):
            pass
    s.close()
elif args.mode == 'churn':
    t0 = time.time()
    done = retries = 0
    ports = {}
    while done < args.n and time.time() - t0 < args.deadline:
        s = sock()
        try:
            s.connect((args.host, args.port))
        except OSError as e:
            s.close()
            if e.errno == errno.EADDRNOTAVAIL:
                retries += 1
                time.sleep(0.02)
                continue
            raise
        p = s.getsockname()[1]
        ports[p] = ports.get(p, 0) + 1
        req(s, args.path, '1.0', True)
        read_resp(s)
        s.close()
        done += 1
    print('done %d connections in %.1fs, %d EADDRNOTAVAIL retries, %d distinct ports, max reuse %d'
          % (done, time.time() - t0, retries, len(ports), max(ports.values()) if ports else 0))
