#!/usr/bin/python3
"""UDP request/response in lock step (a DNS-like exchange with big answers).

  udp_reqresp.py server --addr A [--port 5353] [--resp-size 4000] [--timeout 30]
  udp_reqresp.py client --addr A [--port 5353] [--count 20] [--req-size 60]
                 [--think-ms 0] [--retry-ms 1000] [--timeout 30]

The client sends request i (its number in the first 4 bytes), waits for the
answer carrying the same number, then (after --think-ms) sends request i+1.
If no answer comes within --retry-ms it sends request i again (counted as a
retry). The server answers every request with --resp-size bytes that start
with the request's number, so answers larger than the path MTU leave as IP
fragments. Prints one JSON line. Bounded by --timeout (SIGALRM).
"""
import argparse, json, signal, socket, struct, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("role", choices=["server", "client"])
ap.add_argument("--addr", required=True)
ap.add_argument("--port", type=int, default=5353)
ap.add_argument("--resp-size", type=int, default=4000)
ap.add_argument("--req-size", type=int, default=60)
ap.add_argument("--count", type=int, default=20)
ap.add_argument("--think-ms", type=float, default=0.0)
ap.add_argument("--retry-ms", type=float, default=1000.0)
ap.add_argument("--timeout", type=float, default=30.0)
a = ap.parse_args()
signal.signal(signal.SIGALRM, lambda *_: (print(json.dumps({"role": a.role, "error": "timeout"}), flush=True), sys.exit(3)))
signal.alarm(int(a.timeout) + 1)
fam = socket.AF_INET6 if ":" in a.addr else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
if a.role == "server":
    s.bind((a.addr, a.port))
    n = 0
    while True:
        data, peer = s.recvfrom(65536)
        if data[4:8] == b"stop":
            break
        s.sendto(data[:4] + b"r" * (a.resp_size - 4), peer)
        n += 1
    res = {"role": "server", "answered": n}
else:
    s.connect((a.addr, a.port))
    retries = 0
    for i in range(a.count):
        req = struct.pack("!I", i) + b"q" * (a.req_size - 4)
        while True:
            s.send(req)
            s.settimeout(a.retry_ms / 1000)
            try:
                while True:
                    data = s.recv(65536)
                    if data[:4] == req[:4]:
                        break
                break
            except socket.timeout:
                retries += 1
        if a.think_ms:
            time.sleep(a.think_ms / 1000)
    s.send(struct.pack("!I", 0) + b"stop")
    res = {"role": "client", "requests": a.count, "retries": retries}
signal.alarm(0)
print(json.dumps(res), flush=True)
