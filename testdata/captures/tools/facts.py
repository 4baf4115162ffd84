#!/usr/bin/python3
"""Print tshark-verified facts about a capture (used to write the READMEs).
usage: facts.py FILE.pcap [--gap-ms 30]"""
import subprocess, sys, collections

f = sys.argv[1]
gap_ms = float(sys.argv[sys.argv.index("--gap-ms") + 1]) if "--gap-ms" in sys.argv else 30.0


def ts(filt, *fields):
    cmd = ["tshark", "-r", f, "-T", "fields", "-E", "separator=|"]
    if filt:
        cmd += ["-Y", filt]
    for x in fields:
        cmd += ["-e", x]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return [l.split("|") for l in out.splitlines() if l]


def nums(filt):
    return [int(r[0]) for r in ts(filt, "frame.number")]


def show(name, filt, maxlist=12):
    n = nums(filt)
    lst = ",".join(map(str, n[:maxlist])) + (",..." if len(n) > maxlist else "")
    print(f"{name:34s} {len(n):6d}  [{lst}]  ({filt})")


allf = ts(None, "frame.number", "frame.time_relative", "frame.len", "frame.cap_len")
print(f"file {f}: frames={len(allf)} duration={float(allf[-1][1]):.3f}s max_frame_len={max(int(r[2]) for r in allf)}")
for name, filt in [
    ("tcp", "tcp"), ("udp", "udp"), ("icmp", "icmp"), ("icmpv6", "icmpv6"),
    ("ip fragments (MF or offset)", "ip.flags.mf==1 || ip.frag_offset>0"),
    ("ipv6 fragments", "ipv6.fraghdr"),
    ("SYN", "tcp.flags.syn==1"), ("FIN", "tcp.flags.fin==1"), ("RST", "tcp.flags.reset==1"),
    ("retransmission", "tcp.analysis.retransmission"),
    ("fast_retransmission", "tcp.analysis.fast_retransmission"),
    ("spurious_retransmission", "tcp.analysis.spurious_retransmission"),
    ("duplicate_ack", "tcp.analysis.duplicate_ack"),
    ("lost_segment", "tcp.analysis.lost_segment"),
    ("ack_lost_segment", "tcp.analysis.ack_lost_segment"),
    ("out_of_order", "tcp.analysis.out_of_order"),
    ("zero_window", "tcp.analysis.zero_window"),
    ("zero_window_probe", "tcp.analysis.zero_window_probe"),
    ("zero_window_probe_ack", "tcp.analysis.zero_window_probe_ack"),
    ("window_full", "tcp.analysis.window_full"),
    ("window_update", "tcp.analysis.window_update"),
    ("keep_alive", "tcp.analysis.keep_alive"),
]:
    show(name, filt)
rows = ts("tcp", "frame.number", "frame.time_relative", "ip.src", "ipv6.src", "tcp.srcport", "tcp.len", "tcp.window_size", "tcp.analysis.bytes_in_flight", "tcp.options.mss_val", "tcp.options.wscale.shift")
per = collections.defaultdict(lambda: [0, 0, 0, None, 0])
for r in rows:
    k = (r[2] or r[3]) + ":" + r[4]
    d = per[k]
    d[0] += 1
    d[1] += int(r[5] or 0)
    d[2] = max(d[2], int(r[5] or 0))
    if r[6]:
        d[3] = int(r[6]) if d[3] is None else min(d[3], int(r[6]))
    if r[7]:
        d[4] = max(d[4], int(r[7]))
for k, d in per.items():
    print(f"from {k:22s} segs={d[0]} payload_bytes={d[1]} max_tcp_len={d[2]} min_win={d[3]} max_bytes_in_flight={d[4]}")
for r in ts("tcp.flags.syn==1", "frame.number", "ip.src", "ipv6.src", "tcp.options.mss_val", "tcp.options.wscale.shift", "tcp.window_size_value"):
    print(f"SYN frame {r[0]} from {r[1] or r[2]} mss={r[3]} wscale={r[4] or 'none'} win={r[5]}")
# gaps
t = [(int(r[0]), float(r[1])) for r in allf]
gaps = [(b[0], (b[1] - a[1]) * 1000) for a, b in zip(t, t[1:]) if (b[1] - a[1]) * 1000 >= gap_ms]
print(f"gaps >= {gap_ms} ms: {len(gaps)}  " + ", ".join(f"#{n}:{g:.1f}" for n, g in gaps[:40]) + (" ..." if len(gaps) > 40 else ""))
if gaps:
    g = sorted(x[1] for x in gaps)
    print(f"   gap min={g[0]:.1f} median={g[len(g)//2]:.1f} max={g[-1]:.1f} ms")
