#!/usr/bin/python3
"""Listener and client for the accept-queue captures (aq-*): connections that start
microseconds apart from fixed source ports, and a listener with a small backlog whose
application accept()s on a schedule.

  aqapp.py server --addr A --port P [--backlog N] [--accept-delay S] [--accept-interval S]
                  [--conns N] [--req-size N] [--resp-size N] [--think-ms MS]
      listen(N); sleep --accept-delay s after listening, then accept() one connection every
      --accept-interval s (all that are queued when the interval is 0); each accepted
      connection is served in its own thread: read --req-size bytes, wait --think-ms, send
      --resp-size bytes, close when the client closes. Exits after --conns connections.
      --defer-accept S: TCP_DEFER_ACCEPT S on the listener.
      --accept-when-queued N: first wait until the accept queue holds N connections (TCP_INFO
      of the listener: tcpi_unacked is its accept-queue length), then --accept-delay s.
  aqapp.py client --addr A --port P --conn SPORT@MS [--conn SPORT@MS ...] [--src ADDR]
                  [--req-size N] [--resp-size N] [--reply-timeout S]
      one thread, non-blocking connect()s: connection i is bound to source port SPORT_i and
      connect()s MS_i milliseconds after the first (busy-waited, so 0.4 ms apart is 0.4 ms);
      once all are issued, each sends its --req-size request as soon as it is connected
      (--send-after S: S s later; meant for one connection), reads the --resp-size
      answer (or gives up after --reply-timeout s) and closes.

Every event is printed as one JSON line (t = seconds since start). Every run is bounded by
--timeout (SIGALRM)."""
import argparse, errno, json, selectors, signal, socket, struct, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=8080)
ap.add_argument("--backlog", type=int, default=128)
ap.add_argument("--accept-delay", type=float, default=0.0)
ap.add_argument("--accept-interval", type=float, default=0.0)
ap.add_argument("--conns", type=int, default=1)
ap.add_argument("--accept-when-queued", type=int, default=0)
ap.add_argument("--defer-accept", type=int, default=0)
ap.add_argument("--req-size", type=int, default=100)
ap.add_argument("--resp-size", type=int, default=200)
ap.add_argument("--think-ms", type=float, default=0.0)
ap.add_argument("--conn", action="append", default=[])
ap.add_argument("--src", default="")
ap.add_argument("--reply-timeout", type=float, default=5.0)
ap.add_argument("--send-after", type=float, default=0.0)
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()
T0 = time.monotonic()
lock = threading.Lock()


def log(ev, **kw):
    with lock:
        print(json.dumps(dict(t=round(time.monotonic() - T0, 4), ev=ev, **kw)), flush=True)


def on_alarm(*_):
    log("timeout")
    sys.stdout.flush()
    import os
    os._exit(3)


signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, a.timeout)


def read_n(s, n):
    got = b""
    while len(got) < n:
        d = s.recv(n - len(got))
        if not d:
            break
        got += d
    return got


def serve(c, peer):
    try:
        req = read_n(c, a.req_size)
        log("request", peer=peer, bytes=len(req))
        if a.think_ms:
            time.sleep(a.think_ms / 1000)
        c.sendall(b"r" * a.resp_size)
        log("answered", peer=peer)
        c.settimeout(a.timeout)
        while c.recv(4096):
            pass
        log("closed", peer=peer)
    except OSError as e:
        log("error", peer=peer, err=errno.errorcode.get(e.errno, str(e)))
    c.close()


def server():
    ls = socket.socket(socket.AF_INET6 if ":" in a.addr else socket.AF_INET)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    if a.defer_accept:
        ls.setsockopt(socket.IPPROTO_TCP, socket.TCP_DEFER_ACCEPT, a.defer_accept)
    ls.listen(a.backlog)
    log("listening", backlog=a.backlog)
    if a.accept_when_queued:
        while True:
            info = ls.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
            queued = struct.unpack_from("I", info, 24)[0]  # tcpi_unacked: the accept queue
            if queued >= a.accept_when_queued:
                log("queue-full", queued=queued)
                break
            time.sleep(0.0002)
    time.sleep(a.accept_delay)
    th = []
    for _ in range(a.conns):
        c, peer = ls.accept()
        log("accepted", peer="%s:%d" % peer[:2])
        t = threading.Thread(target=serve, args=(c, "%s:%d" % peer[:2]), daemon=True)
        t.start()
        th.append(t)
        if a.accept_interval:
            time.sleep(a.accept_interval)
    for t in th:
        t.join(a.timeout)
    log("done")


def client():
    plan = []
    for spec in a.conn:
        port, ms = spec.split("@")
        plan.append((int(port), float(ms) / 1000))
    sel = selectors.DefaultSelector()
    fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
    state = {}
    socks = []
    for port, off in plan:  # made and bound first: the connect()s alone are timed
        s = socket.socket(fam)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a.src, port))
        s.setblocking(False)
        socks.append(s)
    start = time.monotonic()
    for (port, off), s in zip(plan, socks):
        while time.monotonic() - start < off:
            pass
        err = s.connect_ex((a.addr, a.port))
        log("connect", sport=port, err=errno.errorcode.get(err, str(err)))
        state[s] = dict(port=port, sent=False, got=0, since=time.monotonic())
        sel.register(s, selectors.EVENT_WRITE)
    while state:
        for key, ev in sel.select(0.05):
            s = key.fileobj
            st = state[s]
            if not st["sent"]:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    log("connect-failed", sport=st["port"], err=errno.errorcode.get(err, str(err)))
                    sel.unregister(s); s.close(); del state[s]
                    continue
                if a.send_after:
                    log("connected", sport=st["port"])
                    time.sleep(a.send_after)  # one connection per run when this is used
                s.send(b"q" * a.req_size)
                st["sent"] = True
                st["since"] = time.monotonic()
                log("sent", sport=st["port"])
                sel.modify(s, selectors.EVENT_READ)
                continue
            try:
                d = s.recv(65536)
            except OSError as e:
                d = b""
                log("error", sport=st["port"], err=errno.errorcode.get(e.errno, str(e)))
            st["got"] += len(d)
            if not d or st["got"] >= a.resp_size:
                log("answer", sport=st["port"], bytes=st["got"])
                sel.unregister(s); s.close(); del state[s]
        now = time.monotonic()
        for s, st in list(state.items()):
            if now - st["since"] > a.reply_timeout:
                log("gave-up", sport=st["port"], sent=st["sent"])
                sel.unregister(s); s.close(); del state[s]
    log("done")


server() if a.role == "server" else client()
