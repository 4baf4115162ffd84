#!/usr/bin/python3
"""Independent check of the two-point matching, from tshark field dumps:
facts.py CLIENT.pcap SERVER.pcap prints, per direction, the packets seen at
both files, only at the upstream one (lost between the points, with the frames of
the upstream file) and only at the downstream one. Connections are paired by the client's SYN sequence
number (tcp.seq_raw), packets by (seq - ISN, ack - peer ISN, tcp.len,
SYN/FIN/RST/ACK flags) counted as multisets, so a retransmission that
crossed matches one copy and the dropped copy stays unmatched.
Reordering: the copies of a key are paired in order (the last ones upstream
where some were lost); "reordered" counts the packets that reached the
downstream file before one that left the upstream file ahead of them (as
pcapdoc counts), "late" the packets that arrived after one that left
after them (the ones held back)."""
import collections, subprocess, sys

F = ["ip.src", "tcp.srcport", "ip.dst", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.flags", "ip.ttl", "tcp.options.mss_val", "frame.number"]


def dump(path):
    out = subprocess.run(["tshark", "-r", path, "-Y", "tcp", "-T", "fields", "-E", "separator=\t"] + sum([["-e", f] for f in F], []),
                         capture_output=True, text=True, check=True).stdout
    conns = {}
    for line in out.splitlines():
        src, sp, dst, dp, seq, ack, ln, fl, ttl, mss, fno = (line.split("\t") + [""] * 11)[:11]
        fl = int(fl, 16)
        key = tuple(sorted([(src, sp), (dst, dp)]))
        c = conns.setdefault(key, {"cli": None, "isn": [None, None], "pk": []})
        if fl & 0x12 == 0x02:
            c["cli"] = (src, sp)
            c["isn"][0] = int(seq)
        if fl & 0x12 == 0x12:
            c["cli"] = (dst, dp)
            c["isn"][1] = int(seq)
        c["pk"].append(((src, sp), int(seq), int(ack or 0), int(ln), fl, ttl, mss, int(fno)))
    res = {}
    for c in conns.values():
        isn = c["isn"]
        ms = [collections.Counter(), collections.Counter()]
        fr = [collections.defaultdict(list), collections.defaultdict(list)]
        for s, seq, ack, ln, fl, ttl, mss, fno in c["pk"]:
            d = 0 if s == c["cli"] else 1
            rel_ack = (ack - isn[1 - d]) % 2**32 if fl & 0x10 else 0
            k = ((seq - isn[d]) % 2**32, rel_ack, ln, fl & 0x17)
            ms[d][k] += 1
            fr[d][k].append(fno)
        res[isn[0]] = (ms, fr)
    return res


a, b = dump(sys.argv[1]), dump(sys.argv[2])
tot = [[0, 0, 0], [0, 0, 0]]
lost = [[], []]
reordered, late = [0, 0], [0, 0]
paired = 0


def out_of_order(pairs):
    """Of (first, second) frame pairs, those whose second is below the
    largest second of a pair with a smaller first."""
    n, top = 0, -1
    for _, x in sorted(pairs):
        if x < top:
            n += 1
        top = max(top, x)
    return n


for isn, (ma, fa) in a.items():
    if isn not in b:
        continue
    mb, fb = b[isn]
    paired += 1
    for d in range(2):
        up, dn = (ma[d], mb[d]) if d == 0 else (mb[d], ma[d])
        fup, fdn = (fa[d], fb[d]) if d == 0 else (fb[d], fa[d])
        pairs = []
        for k, n in up.items():
            # the first copies are the ones that did not cross (a retransmission did)
            lost[d] += fup[k][: max(0, n - dn.get(k, 0))]
            m = min(n, dn.get(k, 0))
            if m:
                pairs += zip(fup[k][n - m:], fdn[k][:m])
        reordered[d] += out_of_order(pairs)
        late[d] += out_of_order([(b, a) for a, b in pairs])
        both = sum((up & dn).values())
        tot[d][0] += both
        tot[d][1] += sum(up.values()) - both
        tot[d][2] += sum(dn.values()) - both
print("paired", paired)
for d, name in enumerate(["client_to_server", "server_to_client"]):
    print(name, "both", tot[d][0], "only_upstream", tot[d][1], "only_downstream", tot[d][2],
          "upstream frames not downstream", sorted(lost[d])[:20])
for d, name in enumerate(["client_to_server", "server_to_client"]):
    print(name, "reordered", reordered[d], "late", late[d])
