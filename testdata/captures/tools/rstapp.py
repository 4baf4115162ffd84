#!/usr/bin/python3
"""TCP test applications for the reset / idle-timeout / PAWS / accept-queue captures.

Every run is bounded by --timeout (SIGALRM). Every event is printed as one JSON line with t =
seconds since the program started, so a gen.sh log tells what the application saw (which
call failed with which errno) next to what the capture shows.

  rstapp.py server --addr A --port P [options]     serves connections one at a time
    --backlog N          listen() backlog (default 128)
    --conns N            connections to serve, then exit (default 1)
    --accept-delay S     sleep S before the first accept(); --accept-interval S between accepts
    --req-size N         a request is N bytes; each is answered with --resp-size bytes
    --upload-body N      upload mode: after the first request read N more bytes (the body),
                         then --think-ms, answer, close. --upload-body 0 = never read the body.
    --think-ms MS        before each answer
    --idle-close S       close the connection after S s without a request
    --push-after S       send one unsolicited --push-size message after S s idle
    --linger0            close() with SO_LINGER {on, 0} (abortive close: RST)
  rstapp.py client --addr A --port P [options]
    --at T1,T2,...       send a request at these times (s after connect) and wait for its answer
    --req-size/--resp-size, --tag TEXT (put TEXT at the start of each request from the
                         --tag-from'th on; default the first)
    --upload-body N --chunk C --chunk-gap-ms G   after the first request send N bytes in
                         C-byte writes G ms apart, then wait for the answer
    --reply-timeout S    give up waiting for an answer after S s (then close)
    --wait S             after the last answer keep reading for S s (EOF, RST or pushed data)
    --keepalive I,V,C    SO_KEEPALIVE with TCP_KEEPIDLE I, TCP_KEEPINTVL V, TCP_KEEPCNT C
    --linger0            close() with SO_LINGER {on, 0}
  rstapp.py burst --addr A --port P --conns N     N non-blocking connect()s at once; each sends
                         one --req-size request as soon as it is connected and waits
                         --reply-timeout s for the --resp-size answer, closing each
                         connection as soon as its answer is complete.
"""
import argparse, errno, json, os, select, signal, socket, struct, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client", "burst"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=80)
ap.add_argument("--backlog", type=int, default=128)
ap.add_argument("--conns", type=int, default=1)
ap.add_argument("--accept-delay", type=float, default=0.0)
ap.add_argument("--accept-interval", type=float, default=0.0)
ap.add_argument("--req-size", type=int, default=100)
ap.add_argument("--resp-size", type=int, default=200)
ap.add_argument("--upload-body", type=int, default=-1)
ap.add_argument("--think-ms", type=float, default=0.0)
ap.add_argument("--idle-close", type=float, default=0.0)
ap.add_argument("--push-after", type=float, default=0.0)
ap.add_argument("--push-size", type=int, default=120)
ap.add_argument("--linger0", action="store_true")
ap.add_argument("--at", default="0")
ap.add_argument("--tag", default="")
ap.add_argument("--tag-from", type=int, default=1)
ap.add_argument("--chunk", type=int, default=4096)
ap.add_argument("--chunk-gap-ms", type=float, default=0.0)
ap.add_argument("--reply-timeout", type=float, default=5.0)
ap.add_argument("--wait", type=float, default=0.0)
ap.add_argument("--keepalive", default="")
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


def err_name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if isinstance(e, OSError) and e.errno else type(e).__name__


def close(s, linger0):
    if linger0:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    log("close", linger0=linger0)


def payload(n, tag=""):
    body = (tag.encode() + b"x" * n)[:n]
    return body[:-1] + b"\n" if n > 1 else body


def read_exact(s, n, deadline):
    """Read n bytes; returns (bytes, why) with why in ok/eof/timeout/<errno>."""
    buf = b""
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            return buf, "timeout"
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return buf, "timeout"
        try:
            d = s.recv(n - len(buf))
        except OSError as e:
            return buf, err_name(e)
        if not d:
            return buf, "eof"
        buf += d
    return buf, "ok"


def server():
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    ls.listen(a.backlog)
    log("listen", backlog=a.backlog)
    if a.accept_delay:
        time.sleep(a.accept_delay)
    for k in range(a.conns):
        if k and a.accept_interval:
            time.sleep(a.accept_interval)
        c, peer = ls.accept()
        log("accept", peer="%s:%d" % peer)
        serve(c)


def serve(c):
    end = T0 + a.timeout
    if a.upload_body >= 0:
        req, why = read_exact(c, a.req_size, end)
        log("request", bytes=len(req), why=why)
        if a.upload_body:
            body, why = read_exact(c, a.upload_body, end)
            log("body", bytes=len(body), why=why)
        time.sleep(a.think_ms / 1000.0)
        c.sendall(payload(a.resp_size))
        log("answer", bytes=a.resp_size)
        close(c, a.linger0)
        return
    last = time.monotonic()
    pushed = False
    while True:
        now = time.monotonic()
        waits = [end - now]
        if a.idle_close:
            waits.append(last + a.idle_close - now)
        if a.push_after and not pushed:
            waits.append(last + a.push_after - now)
        w = max(0.0, min(waits))
        r, _, _ = select.select([c], [], [], w)
        now = time.monotonic()
        if r:
            req, why = read_exact(c, a.req_size, end)
            if why != "ok":
                log("request", bytes=len(req), why=why)
                c.close()
                log("close", linger0=False)
                return
            log("request", bytes=len(req))
            time.sleep(a.think_ms / 1000.0)
            try:
                c.sendall(payload(a.resp_size))
                log("answer", bytes=a.resp_size)
            except OSError as e:
                log("answer-failed", err=err_name(e))
                c.close()
                return
            last = time.monotonic()
            continue
        if now >= end:
            close(c, a.linger0)
            return
        if a.push_after and not pushed and now >= last + a.push_after:
            try:
                c.sendall(payload(a.push_size, "PUSH "))
                log("push", bytes=a.push_size)
            except OSError as e:
                log("push-failed", err=err_name(e))
            pushed = True
            continue
        if a.idle_close and now >= last + a.idle_close:
            log("idle", seconds=round(now - last, 3))
            close(c, a.linger0)
            return


def client():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if a.keepalive:
        i, v, n = (int(x) for x in a.keepalive.split(","))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, i)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, v)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, n)
    s.connect((a.addr, a.port))
    t_conn = time.monotonic()
    log("connected", local="%s:%d" % s.getsockname(), keepalive=a.keepalive or None)
    ok = True
    for k, at in enumerate(float(x) for x in a.at.split(",")):
        d = t_conn + at - time.monotonic()
        if d > 0:
            # read while waiting: a pushed message, EOF or a reset shows up here
            ok = drain(s, d)
            if not ok:
                break
        try:
            s.sendall(payload(a.req_size, a.tag if k + 1 >= a.tag_from else ""))
            log("request", n=k + 1, bytes=a.req_size)
            if k == 0 and a.upload_body > 0:
                sent = 0
                while sent < a.upload_body:
                    n = min(a.chunk, a.upload_body - sent)
                    s.sendall(b"b" * n)
                    sent += n
                    if a.chunk_gap_ms:
                        time.sleep(a.chunk_gap_ms / 1000.0)
                log("body-sent", bytes=sent)
        except OSError as e:
            log("send-failed", n=k + 1, err=err_name(e), body_sent=locals().get("sent"))
            ok = False
        resp, why = read_exact(s, a.resp_size, time.monotonic() + a.reply_timeout)
        log("answer", n=k + 1, bytes=len(resp), why=why)
        if why != "ok":
            ok = False
            break
    if ok and a.wait:
        drain(s, a.wait)
    close(s, a.linger0)


def drain(s, secs):
    """Read for secs seconds; log what arrives. False on EOF or error."""
    end = time.monotonic() + secs
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return True
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return True
        try:
            d = s.recv(65536)
        except OSError as e:
            log("read-error", err=err_name(e))
            return False
        if not d:
            log("eof")
            return False
        log("data", bytes=len(d))


def burst():
    socks = []
    for _ in range(a.conns):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect((a.addr, a.port))
        except BlockingIOError:
            pass
        socks.append(s)
    log("connecting", conns=a.conns)
    state = {s: "connecting" for s in socks}
    got = {s: 0 for s in socks}
    name = {}
    end = time.monotonic() + a.reply_timeout
    while time.monotonic() < end and any(v in ("connecting", "sent") for v in state.values()):
        wr = [s for s in socks if state[s] == "connecting"]
        rd = [s for s in socks if state[s] == "sent"]
        r, w, _ = select.select(rd, wr, [], max(0.0, end - time.monotonic()))
        for s in w:
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if e:
                state[s] = "connect-failed"
                log("connect-failed", err=errno.errorcode.get(e, str(e)))
                continue
            name[s] = "%s:%d" % s.getsockname()
            s.send(payload(a.req_size))
            state[s] = "sent"
            log("connected+request", local=name[s], bytes=a.req_size)
        for s in r:
            try:
                d = s.recv(65536)
            except OSError as e:
                state[s] = "error"
                log("read-error", local=name[s], err=err_name(e))
                continue
            if not d:
                state[s] = "eof"
                log("eof", local=name[s], bytes=got[s])
                continue
            got[s] += len(d)
            if got[s] >= a.resp_size:
                state[s] = "answered"
                log("answer", local=name[s], bytes=got[s])
                s.close()  # done with it: the server sees EOF and can move on
    for s in socks:
        if state[s] in ("connecting", "sent"):
            log("gave-up", local=name.get(s, "-"), state=state[s])
        if state[s] != "answered":
            s.close()


{"server": server, "client": client, "burst": burst}[a.role]()
log("done")
