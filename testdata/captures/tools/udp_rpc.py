#!/usr/bin/env python3
"""A UDP request/response exchange shaped as ONC RPC (as NFS over UDP):
each call carries xid, message type 0 (call), RPC version 2, then zeros up
to --size bytes; the server answers xid, message type 1 (reply) and zeros
(--reply bytes). The client waits --wait s for the answer and resends the
same call (same xid) until it comes, at most --tries times; --count calls,
--interval s apart. Prints one line per call: xid, tries, answered."""
import argparse, socket, struct, sys, time

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["server", "client"])
    ap.add_argument("--addr", required=True)
    ap.add_argument("--port", type=int, default=2049)
    ap.add_argument("--sport", type=int, default=800)
    ap.add_argument("--size", type=int, default=3000)
    ap.add_argument("--reply", type=int, default=100)
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--wait", type=float, default=1.0)
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=20.0)
    a = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if a.mode == "server":
        s.bind((a.addr, a.port))
        s.settimeout(a.timeout)
        end = time.time() + a.timeout
        while time.time() < end:
            try:
                data, peer = s.recvfrom(65535)
            except socket.timeout:
                break
            if len(data) >= 12 and struct.unpack("!I", data[4:8])[0] == 0:
                xid = data[:4]
                s.sendto(xid + struct.pack("!I", 1) + bytes(a.reply - 8), peer)
        return 0
    s.bind(("0.0.0.0", a.sport))
    s.settimeout(a.wait)
    for i in range(a.count):
        xid = 0x5a000000 + i
        call = struct.pack("!III", xid, 0, 2) + bytes(a.size - 12)
        got = False
        for t in range(1, a.tries + 1):
            s.sendto(call, (a.addr, a.port))
            deadline = time.time() + a.wait
            while time.time() < deadline:
                try:
                    data, _ = s.recvfrom(65535)
                except socket.timeout:
                    break
                if data[:4] == struct.pack("!I", xid):
                    got = True
                    break
            if got:
                break
        print("xid 0x%08x tries %d answered %s" % (xid, t, got), flush=True)
        time.sleep(a.interval)
    return 0

if __name__ == "__main__":
    sys.exit(main())
