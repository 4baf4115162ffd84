#!/usr/bin/python3
"""Transfer facts of a one-flow bulk capture, from tshark (used for the issue-24 READMEs).

usage: q24_facts.py FILE.pcap [--bucket S]
Prints: handshake (frames, RTT, options), data frames and bytes per direction, first/last data
frame, goodput, retransmission/dup-ACK/window_full counts, tcp.analysis.ack_rtt (sender view)
and a timestamp-echo RTT (data carrying TSecr=X minus the time the peer's segment with TSval=X
was seen: it includes the queue on either vantage), advertised window and bytes in flight, each
per time bucket (default 0.5 s), and the ECN flags (ECE/CWR/CE, IP ECN field)."""
import collections, statistics, subprocess, sys

f = sys.argv[1]
bucket = float(sys.argv[sys.argv.index("--bucket") + 1]) if "--bucket" in sys.argv else 0.5
F = ["frame.number", "frame.time_relative", "ip.src", "tcp.srcport", "tcp.len", "tcp.seq", "tcp.ack",
     "tcp.flags.syn", "tcp.flags.ack", "tcp.flags.fin", "tcp.flags.ece", "tcp.flags.cwr", "ip.dsfield.ecn",
     "tcp.window_size", "tcp.analysis.bytes_in_flight", "tcp.analysis.ack_rtt", "tcp.options.timestamp.tsval",
     "tcp.options.timestamp.tsecr", "tcp.options.wscale.shift", "tcp.options.mss_val",
     "tcp.analysis.retransmission", "tcp.analysis.duplicate_ack", "tcp.analysis.window_full",
     "tcp.analysis.lost_segment", "tcp.analysis.out_of_order", "tcp.analysis.zero_window"]
cmd = ["tshark", "-r", f, "-Y", "tcp", "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
for x in F:
    cmd += ["-e", x]
rows = [dict(zip(F, l.split("|"))) for l in subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()]
if not rows:
    sys.exit("no tcp")
t = lambda r: float(r["frame.time_relative"])
n = lambda r: int(r["frame.number"])
syn = [r for r in rows if r["tcp.flags.syn"] == "1"]
print(f"file {f}: {len(rows)} tcp frames, {t(rows[-1]):.3f} s")
for r in syn:
    print(f"  SYN frame {n(r)} t={t(r):.4f} from {r['ip.src']}:{r['tcp.srcport']} ack={r['tcp.flags.ack']} "
          f"ece={r['tcp.flags.ece']} cwr={r['tcp.flags.cwr']} mss={r['tcp.options.mss_val']} "
          f"wscale={r['tcp.options.wscale.shift'] or 'none'} win={r['tcp.window_size']}")
cli = [r for r in syn if r["tcp.flags.ack"] == "0"]
sa = [r for r in syn if r["tcp.flags.ack"] == "1"]
if cli and sa:
    c0 = cli[-1]
    a3 = next((r for r in rows if n(r) > n(sa[0]) and r["ip.src"] == c0["ip.src"]), None)
    print(f"  handshake: last SYN {n(c0)} -> SYN-ACK {n(sa[0])} {1000*(t(sa[0])-t(c0)):.2f} ms"
          + (f", -> ACK {n(a3)} {1000*(t(a3)-t(sa[0])):.2f} ms" if a3 else ""))
    if len(cli) > 1:
        print(f"  client SYNs: {len(cli)}, first {n(cli[0])} t={t(cli[0]):.4f}, last {n(cli[-1])} t={t(cli[-1]):.4f}")
by = collections.defaultdict(list)
for r in rows:
    by[r["ip.src"] + ":" + r["tcp.srcport"]].append(r)
snd = max(by, key=lambda k: sum(int(r["tcp.len"] or 0) for r in by[k]))
data = [r for r in by[snd] if int(r["tcp.len"] or 0) > 0]
acks = [r for k in by if k != snd for r in by[k]]
tot = sum(int(r["tcp.len"]) for r in data)
d0, d1 = data[0], data[-1]
print(f"sender {snd}: {len(data)} data frames, {tot} bytes, max len {max(int(r['tcp.len']) for r in data)}; "
      f"first data frame {n(d0)} t={t(d0):.4f}, last {n(d1)} t={t(d1):.4f}")
dur = t(d1) - t(d0)
print(f"  first->last data frame: {dur:.3f} s = {8*tot/dur/1e6:.2f} Mbit/s")
for k in ["tcp.analysis.retransmission", "tcp.analysis.duplicate_ack", "tcp.analysis.window_full",
          "tcp.analysis.lost_segment", "tcp.analysis.out_of_order", "tcp.analysis.zero_window"]:
    fr = [n(r) for r in rows if r[k]]
    print(f"  {k}: {len(fr)}" + (f" first {fr[:6]}" if fr else ""))
ece = [n(r) for r in acks if r["tcp.flags.ece"] == "1" and r["tcp.flags.syn"] != "1"]
cwr = [n(r) for r in data if r["tcp.flags.cwr"] == "1"]
ce = [n(r) for r in data if r["ip.dsfield.ecn"] == "3"]
ect = collections.Counter(r["ip.dsfield.ecn"] for r in data)
print(f"  ECN: data IP ecn field {dict(ect)}; CE {len(ce)} {ce[:5]}; receiver ECE {len(ece)} {ece[:5]}; sender CWR {len(cwr)} {cwr[:5]}")
# timestamp echo RTT: peer segment with TSval X seen at t0, first sender segment with TSecr X at t1
first_tsval = {}
for r in acks:
    v = r["tcp.options.timestamp.tsval"]
    if v and v not in first_tsval:
        first_tsval[v] = t(r)
seen = set()
tsrtt = []
for r in data:
    e = r["tcp.options.timestamp.tsecr"]
    if e and e in first_tsval and e not in seen:
        seen.add(e)
        tsrtt.append((t(r), 1000 * (t(r) - first_tsval[e])))
ackrtt = [(t(r), 1000 * float(r["tcp.analysis.ack_rtt"])) for r in acks if r["tcp.analysis.ack_rtt"]]


def st(v):
    if not v:
        return "-"
    v = sorted(v)
    return f"n={len(v)} min={v[0]:.1f} med={statistics.median(v):.1f} p90={v[int(0.9*(len(v)-1))]:.1f} max={v[-1]:.1f}"


print(f"  ack_rtt ms (all): {st([x for _, x in ackrtt])}")
print(f"  ts-echo rtt ms (all): {st([x for _, x in tsrtt])}")
win = [(t(r), int(r["tcp.window_size"])) for r in acks if r["tcp.window_size"] and r["tcp.flags.syn"] != "1"]
bif = [(t(r), int(r["tcp.analysis.bytes_in_flight"])) for r in data if r["tcp.analysis.bytes_in_flight"]]
print(f"  receiver window: min {min(w for _, w in win)} max {max(w for _, w in win)} last {win[-1][1]}")
print(f"  bytes in flight: max {max(b for _, b in bif) if bif else '-'}")
print(f"  per {bucket} s: t0 | Mbit/s sent | ack_rtt med | ts-echo rtt med | rwnd max | in-flight max")
end = t(rows[-1])
b0 = 0.0
while b0 <= end:
    inb = lambda L: [x for tt, x in L if b0 <= tt < b0 + bucket]
    by_b = sum(int(r["tcp.len"]) for r in data if b0 <= t(r) < b0 + bucket)
    a, e, w, fl = inb(ackrtt), inb(tsrtt), inb(win), inb(bif)
    print(f"   {b0:5.1f} | {8*by_b/bucket/1e6:6.2f} | {statistics.median(a) if a else float('nan'):7.1f} | "
          f"{statistics.median(e) if e else float('nan'):7.1f} | {max(w) if w else '-':>8} | {max(fl) if fl else '-':>8}")
    b0 += bucket
