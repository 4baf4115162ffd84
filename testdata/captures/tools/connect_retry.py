#!/usr/bin/python3
"""A client that retries a failed connect, like many applications do.

  connect_retry.py --addr A --port P [--tries 3] [--interval 1.0]
                   [--request 40] [--response 200] [--timeout 30]

Each try is a new socket (so a new source port) doing a blocking connect();
on success it writes --request bytes, reads --response bytes, closes and
stops; on failure (ECONNREFUSED, EHOSTUNREACH, ETIMEDOUT...) it waits
--interval seconds and tries again, at most --tries times. Prints one JSON
line: the errno name and duration of every try. Bounded by --timeout (SIGALRM).
Pair with `tcpapp.py server --mode reqresp --parts 40 --resp-size 200`.
"""
import argparse, errno, json, signal, socket, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--tries", type=int, default=3)
ap.add_argument("--interval", type=float, default=1.0)
ap.add_argument("--request", type=int, default=40)
ap.add_argument("--response", type=int, default=200)
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()
signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
tries = []
for i in range(a.tries):
    if i:
        time.sleep(a.interval)
    s = socket.socket(fam, socket.SOCK_STREAM)
    t0 = time.monotonic()
    try:
        s.connect((a.addr, a.port))
    except OSError as e:
        tries.append({"result": errno.errorcode.get(e.errno, str(e.errno)), "s": round(time.monotonic() - t0, 3),
                      "port": s.getsockname()[1]})
        s.close()
        continue
    port = s.getsockname()[1]
    s.sendall(b"q" * a.request)
    got = 0
    while got < a.response:
        b = s.recv(a.response - got)
        if not b:
            break
        got += len(b)
    s.close()
    tries.append({"result": "ok", "s": round(time.monotonic() - t0, 3), "port": port, "response": got})
    break
signal.alarm(0)
print(json.dumps({"tries": tries}), flush=True)
