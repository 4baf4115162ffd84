#!/usr/bin/python3
"""TCP client/server for the data-transfer validation captures (pdvB-*).

  vbapp.py server|client --addr A --port P --mode M [opts]
Modes:
  reqresp  client writes --parts (one write() each), reads --resp-size;
           server reads sum(parts), sleeps --server-delay-ms, writes --resp-size.
           With --req-sizes A,B,..: request i is one write of the i-th size
           (cycled), on both sides.
  send/recv  bulk: sender writes --bytes (in --bursts bursts separated by
           --idle seconds; first --preamble bytes, then --preamble-pause-ms
           of nothing), receiver reads until EOF (optional --rcvbuf,
           --read-chunk/--read-interval, --pauses BYTES:SECS,...).
  keepalive client: one request, SO_KEEPALIVE (TCP_KEEPIDLE/INTVL/CNT from
           --ka-idle/--ka-intvl/--ka-cnt), stays idle --idle s, one more
           request, close (server in reqresp mode).
Every run is bounded by --timeout seconds (SIGALRM).
"""
import argparse, json, signal, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=5000)
ap.add_argument("--mode", choices=["reqresp", "send", "recv", "keepalive"], default="reqresp")
ap.add_argument("--rcvbuf", type=int, default=0)
ap.add_argument("--sndbuf", type=int, default=0)
ap.add_argument("--nodelay", action="store_true")
ap.add_argument("--parts", default="300")
ap.add_argument("--resp-size", type=int, default=50)
ap.add_argument("--req-sizes", default="", help="reqresp: request i is one write of the i-th size (cycled); overrides --parts")
ap.add_argument("--resp-parts", default="", help="server: write the answer in these pieces (e.g. 50,1000)")
ap.add_argument("--count", type=int, default=10)
ap.add_argument("--think-ms", type=float, default=0.0)
ap.add_argument("--server-delay-ms", type=float, default=0.0)
ap.add_argument("--bytes", type=int, default=1 << 20)
ap.add_argument("--bursts", type=int, default=1)
ap.add_argument("--idle", type=float, default=0.0)
ap.add_argument("--read-chunk", type=int, default=65536)
ap.add_argument("--read-interval", type=float, default=0.0)
ap.add_argument("--pauses", default="")
ap.add_argument("--preamble", type=int, default=0, help="send: a first write of this many bytes")
ap.add_argument("--preamble-pause-ms", type=float, default=0.0)
ap.add_argument("--ka-idle", type=int, default=2)
ap.add_argument("--ka-intvl", type=int, default=1)
ap.add_argument("--ka-cnt", type=int, default=9)
ap.add_argument("--cc", default="", help="TCP_CONGESTION for this socket (e.g. cubic)")
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()

signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET


def opts(s):
    if a.rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    if a.sndbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, a.sndbuf)
    if a.nodelay:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if a.cc:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, a.cc.encode())


def recv_exact(s, n):
    got = 0
    while got < n:
        b = s.recv(n - got)
        if not b:
            return got
        got += len(b)
    return got


def do_send(s):
    if a.preamble:
        s.sendall(b"p" * a.preamble)
        time.sleep(a.preamble_pause_ms / 1000)
    buf = b"x" * 65536
    per = a.bytes // a.bursts
    for i in range(a.bursts):
        if i:
            time.sleep(a.idle)
        left = per
        while left > 0:
            left -= s.send(buf[: min(left, len(buf))])
    s.shutdown(socket.SHUT_WR)
    while s.recv(4096):
        pass
    return {"sent": per * a.bursts}


def do_recv(s):
    tot = 0
    t0 = time.monotonic()
    pauses = sorted((int(x.split(":")[0]), float(x.split(":")[1])) for x in a.pauses.split(",") if x)
    while True:
        b = s.recv(a.read_chunk)
        if not b:
            break
        tot += len(b)
        while pauses and tot >= pauses[0][0]:
            time.sleep(pauses.pop(0)[1])
        if a.read_interval:
            time.sleep(a.read_interval)
    dt = time.monotonic() - t0
    return {"received": tot, "seconds": round(dt, 3)}


def request(s, parts):
    t = time.monotonic()
    for p in parts:
        s.sendall(b"q" * p)
    if recv_exact(s, a.resp_size) != a.resp_size:
        return None
    return (time.monotonic() - t) * 1000


parts = [int(x) for x in a.parts.split(",")]
req_sizes = [int(x) for x in a.req_sizes.split(",") if x]
res = {"role": a.role, "mode": a.mode}
if a.role == "server":
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    opts(ls)
    ls.bind((a.addr, a.port))
    ls.listen(1)
    s, peer = ls.accept()
    if a.mode in ("reqresp", "keepalive"):
        n = 0
        reqlen = sum(parts)
        while True:
            want = req_sizes[n % len(req_sizes)] if req_sizes else reqlen
            if recv_exact(s, want) != want:
                break
            if a.server_delay_ms:
                time.sleep(a.server_delay_ms / 1000)
            for p in ([int(x) for x in a.resp_parts.split(",")] if a.resp_parts else [a.resp_size]):
                s.sendall(b"r" * p)
            n += 1
        res["requests"] = n
    elif a.mode == "send":
        res.update(do_send(s))
    else:
        res.update(do_recv(s))
    s.close()
else:
    s = socket.socket(fam, socket.SOCK_STREAM)
    opts(s)
    if a.mode == "keepalive":
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, a.ka_idle)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, a.ka_intvl)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, a.ka_cnt)
    s.connect((a.addr, a.port))
    if a.mode == "reqresp":
        lat = []
        for i in range(a.count):
            l = request(s, [req_sizes[i % len(req_sizes)]] if req_sizes else parts)
            if l is None:
                break
            lat.append(l)
            if a.think_ms:
                time.sleep(a.think_ms / 1000)
        res["requests"] = len(lat)
        res["latency_ms"] = [round(x, 2) for x in lat]
    elif a.mode == "keepalive":
        lat = [request(s, parts)]
        time.sleep(a.idle)
        lat.append(request(s, parts))
        res["latency_ms"] = lat
    elif a.mode == "send":
        res.update(do_send(s))
    else:
        res.update(do_recv(s))
    s.close()
signal.alarm(0)
print(json.dumps(res), flush=True)
