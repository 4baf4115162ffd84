#!/usr/bin/python3
"""Sequence facts from tshark, for the READMEs of the issue-19 captures.

usage: seqfacts.py FILE.pcap [--idle-ms 200]

Per TCP data direction (relative sequence numbers, as tshark shows them):
  - data segments, payload bytes, bytes seen more than once (a resend or a
    copy; 0 = every byte crossed the capture point exactly once);
  - every sequence gap (a segment above the highest byte seen so far) and
    the segments that fill it: frame numbers, how long after the overtaking
    segment they came, their IPv4 IDs (a first copy carries an ID below the
    overtaking segment's, a resend a higher one);
  - every segment sent after a silence of at least --idle-ms, and whether it
    starts exactly at the highest byte seen (the next new byte);
  - segments repeating a byte range already seen, with the time since the
    range was first seen.
"""
import collections, subprocess, sys

f = sys.argv[1]
idle_ms = float(sys.argv[sys.argv.index("--idle-ms") + 1]) if "--idle-ms" in sys.argv else 200.0
cmd = ["tshark", "-n", "-r", f, "-Y", "tcp", "-T", "fields", "-E", "separator=|",
       "-e", "frame.number", "-e", "frame.time_relative", "-e", "ip.src", "-e", "ipv6.src",
       "-e", "tcp.srcport", "-e", "tcp.seq", "-e", "tcp.len", "-e", "ip.id", "-e", "tcp.flags.syn"]
rows = [l.split("|") for l in subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines() if l]

dirs = collections.OrderedDict()
for r in rows:
    n, t, src, port, seq, ln, ipid = int(r[0]), float(r[1]), r[2] or r[3], r[4], int(r[5]), int(r[6]), r[7]
    k = f"{src}:{port}"
    d = dirs.setdefault(k, {"segs": 0, "bytes": 0, "dup": 0, "hi": None, "last": None, "seen": [],
                            "gaps": [], "idle": [], "repeats": []})
    if ln == 0:
        continue
    s, e = seq, seq + ln
    if d["last"] is not None and (t - d["last"]) * 1000 >= idle_ms:
        d["idle"].append((n, t, (t - d["last"]) * 1000, s, d["hi"]))
    d["last"] = t
    d["segs"] += 1
    d["bytes"] += ln
    over = 0
    for (a, b, t0) in d["seen"]:
        lo, hi = max(a, s), min(b, e)
        if lo < hi:
            over += hi - lo
    if over:
        d["dup"] += over
        first = min((t0 for (a, b, t0) in d["seen"] if max(a, s) < min(b, e)), default=t)
        d["repeats"].append((n, t, s, ln, ipid, (t - first) * 1000))
    d["seen"].append((s, e, t))
    if len(d["seen"]) > 4000:
        d["seen"] = d["seen"][-4000:]
    if d["hi"] is None:
        d["hi"] = e
        continue
    if s > d["hi"]:
        d["gaps"].append({"frame": n, "t": t, "ipid": ipid, "lo": d["hi"], "hi": s, "fills": []})
        d["hi"] = e
        continue
    for g in d["gaps"]:
        if g["lo"] <= s < g["hi"]:
            g["fills"].append((n, (t - g["t"]) * 1e6, ipid))
    if e > d["hi"]:
        d["hi"] = e

for k, d in dirs.items():
    if not d["segs"]:
        continue
    print(f"from {k}: data segments {d['segs']}, payload {d['bytes']} B, bytes seen more than once {d['dup']}")
    for g in d["gaps"]:
        fl = g["fills"]
        desc = (f"filled by frames {fl[0][0]}-{fl[-1][0]} ({len(fl)} segments) {fl[0][1]:.0f}-{fl[-1][1]:.0f} us later, "
                f"IPv4 IDs {fl[0][2]}-{fl[-1][2]}") if fl else "never filled"
        print(f"  gap at frame {g['frame']} t={g['t']:.6f} (IPv4 ID {g['ipid']}): seq {g['lo']}-{g['hi']} "
              f"({g['hi'] - g['lo']} B) {desc}")
    for (n, t, gap, s, hi) in d["idle"]:
        print(f"  after {gap:.1f} ms of silence: frame {n} t={t:.6f} seq {s} "
              f"({'the next new byte' if s == hi else 'highest seen ' + str(hi)})")
    for (n, t, s, ln, ipid, age) in d["repeats"][:20]:
        print(f"  repeat: frame {n} t={t:.6f} seq {s} len {ln} IPv4 ID {ipid}, {age:.1f} ms after the first copy")
    if len(d["repeats"]) > 20:
        print(f"  ... {len(d['repeats'])} repeats in all")
