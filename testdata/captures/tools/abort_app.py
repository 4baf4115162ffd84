#!/usr/bin/python3
"""A TLS-like exchange the server ends with an alert, then either an abort
(RST) or an orderly close (FIN), while the client is still sending.

  abort_app.py server --addr A [--port 8443] [--close abort|fin] [--after-ms 100]
  abort_app.py client --addr A [--port 8443] [--chunk 500] [--every-ms 20] [--max-s 2]

Server: accepts one connection, reads the client's first 300 bytes (a
"ClientHello"), waits --after-ms (reading whatever else comes), writes a
7-byte TLS alert record (15 03 03 00 02 02 28: fatal handshake_failure),
then
  abort: SO_LINGER {on, 0} and close(): the kernel sends RST at once and
         answers every later segment from the client with RST;
  fin:   shutdown(SHUT_WR) (FIN), reads until the client's FIN, close();
  close: reads what has arrived (nothing left unread), close(): FIN, and
         the client's data arriving afterwards draws RSTs.
Client: connects, writes 300 bytes, then --chunk bytes every --every-ms
until the server's alert arrives (it then closes: FIN) or a write fails
(ECONNRESET / EPIPE), at most --max-s seconds; with --ignore-eof it keeps
writing after the server's FIN until a write fails. Prints one JSON line.
Bounded by --timeout (SIGALRM).
"""
import argparse, errno, json, signal, socket, struct, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=8443)
ap.add_argument("--close", choices=["abort", "fin", "close"], default="abort")
ap.add_argument("--after-ms", type=float, default=100.0)
ap.add_argument("--chunk", type=int, default=500)
ap.add_argument("--every-ms", type=float, default=20.0)
ap.add_argument("--max-s", type=float, default=2.0)
ap.add_argument("--ignore-eof", action="store_true")
ap.add_argument("--timeout", type=float, default=20.0)
a = ap.parse_args()
signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
ALERT = bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])
res = {"role": a.role}
if a.role == "server":
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((a.addr, a.port))
    ls.listen(4)
    c, _ = ls.accept()
    got = 0
    while got < 300:
        b = c.recv(300 - got)
        if not b:
            break
        got += len(b)
    end = time.monotonic() + a.after_ms / 1000
    c.setblocking(False)
    while time.monotonic() < end:
        try:
            b = c.recv(65536)
            got += len(b)
        except BlockingIOError:
            time.sleep(0.002)
    c.setblocking(True)
    c.sendall(ALERT)
    if a.close == "abort":
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
    elif a.close == "close":
        c.setblocking(False)
        try:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                got += len(b)
        except BlockingIOError:
            pass
        c.close()
    else:
        c.shutdown(socket.SHUT_WR)
        c.settimeout(5)
        while True:
            b = c.recv(65536)
            if not b:
                break
            got += len(b)
        c.close()
    res.update({"read": got, "close": a.close})
else:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.connect((a.addr, a.port))
    s.sendall(b"h" * 300)
    sent, rcvd, result = 300, b"", "max-s"
    t0 = time.monotonic()
    while time.monotonic() - t0 < a.max_s:
        time.sleep(a.every_ms / 1000)
        try:
            b = s.recv(65536, socket.MSG_DONTWAIT)
            if b:
                rcvd += b
            elif not a.ignore_eof:
                result = "eof"
                break
            else:
                res["eof_s"] = res.get("eof_s", round(time.monotonic() - t0, 3))
        except BlockingIOError:
            pass
        except OSError as e:
            result = errno.errorcode.get(e.errno, str(e.errno))
            break
        try:
            sent += s.send(b"d" * a.chunk)
        except OSError as e:
            result = errno.errorcode.get(e.errno, str(e.errno))
            break
    s.close()
    res.update({"sent": sent, "received": rcvd.hex(), "result": result, "s": round(time.monotonic() - t0, 3)})
signal.alarm(0)
print(json.dumps(res), flush=True)
