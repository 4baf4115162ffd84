#!/usr/bin/python3
"""A one-way message stream for the lost-nosack-stream captures.

  stream.py server --addr A --port P --timeout S
      accepts one connection, reads until EOF, prints how many bytes arrived
  stream.py client --addr A --port P --count N --size B --gap-ms G [--mark K1,K2,..] --timeout S
      TCP_NODELAY; writes N messages of B bytes, one every G ms. Message i (1-based)
      starts with "M%05d"; the messages listed in --mark K1,K2,.. start with "LOST"
      instead (a firewall rule can match them, and every retransmission that begins
      with one). Then closes.
Every run is bounded by --timeout (SIGALRM); one JSON line per event.
"""
import argparse, json, os, signal, socket, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=8080)
ap.add_argument("--count", type=int, default=40)
ap.add_argument("--size", type=int, default=200)
ap.add_argument("--gap-ms", type=float, default=100.0)
ap.add_argument("--mark", default="")
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()
T0 = time.monotonic()


def log(ev, **kw):
    print(json.dumps(dict(t=round(time.monotonic() - T0, 4), role=a.role, ev=ev, **kw)), flush=True)


def on_alarm(*_):
    log("timeout")
    os._exit(3)


signal.signal(signal.SIGALRM, on_alarm)
signal.alarm(int(a.timeout) + 1)

if a.role == "server":
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    ls.listen(8)
    log("listen")
    c, peer = ls.accept()
    log("accept", peer="%s:%d" % peer)
    n = 0
    while True:
        d = c.recv(65536)
        if not d:
            break
        n += len(d)
    log("eof", bytes=n)
    c.close()
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((a.addr, a.port))
    log("connected", local="%s:%d" % s.getsockname())
    marks = {int(x) for x in a.mark.split(",") if x}
    t = time.monotonic()
    for i in range(1, a.count + 1):
        head = b"LOST" if i in marks else b"M%05d" % i
        s.sendall((head + b"x" * a.size)[: a.size - 1] + b"\n")
        t += a.gap_ms / 1000.0
        d = t - time.monotonic()
        if d > 0:
            time.sleep(d)
    log("sent", messages=a.count, bytes=a.count * a.size)
    s.close()
    log("close")
