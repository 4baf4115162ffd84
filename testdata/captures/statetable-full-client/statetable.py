#!/usr/bin/python3
"""statetable.py: long-lived connections, then new ones, for the state-table captures.

server --ports 80,8080 [--timeout S]
    accepts on every port; a line "ping N" is answered "pong N"; a line "GET" is answered
    with one short line, then the server waits for the client's close.
client --server IP --srcs A,B,C --long N [--long-gap S] [--interval S] [--new-at S]
       [--new-ports 80,8080] [--new-gap S] [--syncnt N] [--give-up S] [--duration S]
    opens N connections to port 80, one every --long-gap s, round robin over the source
    addresses (non-blocking: a connect that fails does not hold up the next one); every
    --interval s each open connection sends "ping N" and reads "pong N"; from --new-at s on,
    one new connection per (source, port), one every --new-gap s, sends "GET" and reads the
    answer; a connect still pending after --give-up s is closed (the application's connect
    timeout: nothing more is sent), TCP_SYNCNT --syncnt bounds it too. At --duration s the open
    connections close. Prints one JSON line of counts. Everything bounded by --duration (+ connect time).
"""
import argparse, errno, json, os, selectors, signal, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument('mode', choices=['server', 'client'])
ap.add_argument('--ports', default='80,8080')
ap.add_argument('--timeout', type=float, default=60)
ap.add_argument('--server')
ap.add_argument('--srcs', default='')
ap.add_argument('--long', type=int, default=64)
ap.add_argument('--long-gap', type=float, default=0.015)
ap.add_argument('--interval', type=float, default=2.0)
ap.add_argument('--new-at', type=float, default=2.5)
ap.add_argument('--new-ports', default='80,8080')
ap.add_argument('--new-gap', type=float, default=0.25)
ap.add_argument('--syncnt', type=int, default=3)
ap.add_argument('--duration', type=float, default=8.0)
ap.add_argument('--give-up', type=float, default=4.5, help='close a connect still pending after S s')
a = ap.parse_args()

signal.signal(signal.SIGTERM, lambda *x: os._exit(0))


def server():
    signal.signal(signal.SIGALRM, lambda *x: os._exit(0))
    signal.alarm(int(a.timeout))
    sel = selectors.DefaultSelector()
    for p in a.ports.split(','):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('0.0.0.0', int(p)))
        s.listen(256)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, ('listen', None))
    print('listening', a.ports, flush=True)
    while True:
        for key, _ in sel.select(1.0):
            kind, buf = key.data
            if kind == 'listen':
                c, _ = key.fileobj.accept()
                c.setblocking(False)
                c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sel.register(c, selectors.EVENT_READ, ('conn', bytearray()))
                continue
            c = key.fileobj
            try:
                d = c.recv(4096)
            except OSError:
                d = b''
            if not d:
                sel.unregister(c)
                c.close()
                continue
            buf += d
            while b'\n' in buf:
                line, _, rest = bytes(buf).partition(b'\n')
                buf[:] = rest
                if line.startswith(b'ping'):
                    c.send(b'pong' + line[4:] + b'\n')
                elif line.startswith(b'GET'):
                    c.send(b'200 ok\n')


def client():
    t0 = time.time()
    srcs = a.srcs.split(',')
    sel = selectors.DefaultSelector()
    conns = {}  # sock -> dict
    stats = {'long_ok': 0, 'long_failed': 0, 'new_ok': 0, 'new_failed': 0, 'pongs': 0, 'errors': {}}
    plan = []  # (time, kind, src, port)
    for i in range(a.long):
        plan.append((0.3 + i * a.long_gap, 'long', srcs[i % len(srcs)], 80))
    k = 0
    for p in a.new_ports.split(','):
        for s in srcs:
            plan.append((a.new_at + k * a.new_gap, 'new', s, int(p)))
            k += 1
    plan.sort()
    next_ping = {}

    def start(kind, src, port):
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_SYNCNT, a.syncnt)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.bind((src, 0))
        s.setblocking(False)
        try:
            s.connect((a.server, port))
        except BlockingIOError:
            pass
        conns[s] = {'kind': kind, 'state': 'connecting', 'buf': b'', 'n': 0, 't': time.time()}
        sel.register(s, selectors.EVENT_WRITE)

    def fail(s, st, e):
        stats[st['kind'] + '_failed'] += 1
        name = errno.errorcode.get(e, str(e))
        stats['errors'][name] = stats['errors'].get(name, 0) + 1
        sel.unregister(s)
        s.close()
        del conns[s]

    closing = False
    while True:
        now = time.time() - t0
        while plan and plan[0][0] <= now:
            _, kind, src, port = plan.pop(0)
            start(kind, src, port)
        if now >= a.duration and not closing:
            closing = True
            for s, st in list(conns.items()):
                if st['state'] == 'open':
                    sel.unregister(s)
                    s.close()
                    del conns[s]
        if closing and not conns:
            break
        if now >= a.duration + 10:
            break
        for s, st in list(conns.items()):
            if st['state'] == 'connecting' and time.time() - st['t'] >= a.give_up:
                fail(s, st, errno.ETIMEDOUT)
                continue
            if st['state'] == 'open' and st['kind'] == 'long' and now >= next_ping.get(s, 1e9):
                st['n'] += 1
                s.send(b'ping %d\n' % st['n'])
                next_ping[s] += a.interval
        for key, ev in sel.select(0.01):
            s = key.fileobj
            st = conns.get(s)
            if st is None:
                continue
            if st['state'] == 'connecting':
                e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if e:
                    fail(s, st, e)
                    continue
                st['state'] = 'open'
                sel.modify(s, selectors.EVENT_READ)
                if st['kind'] == 'long':
                    stats['long_ok'] += 1
                    # spread the pings of the long connections over the interval
                    next_ping[s] = time.time() - t0 + 0.2 + (stats['long_ok'] % 16) * a.interval / 16
                else:
                    s.send(b'GET\n')
                continue
            try:
                d = s.recv(4096)
            except OSError as ex:
                fail(s, st, ex.errno)
                continue
            if not d:
                sel.unregister(s)
                s.close()
                del conns[s]
                continue
            st['buf'] += d
            while b'\n' in st['buf']:
                line, _, st['buf'] = st['buf'].partition(b'\n')
                if line.startswith(b'pong'):
                    stats['pongs'] += 1
                elif line.startswith(b'200'):
                    stats['new_ok'] += 1
                    sel.unregister(s)
                    s.close()
                    del conns[s]
                    break
    print(json.dumps(stats), flush=True)


server() if a.mode == 'server' else client()
