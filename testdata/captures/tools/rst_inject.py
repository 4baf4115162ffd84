#!/usr/bin/python3
"""On-path RST injector for pcapdoc captures (run in a router namespace).

Watches --iface (AF_PACKET, incoming frames only) for IPv4 TCP segments whose payload
contains --match. For the first such segment of each connection it forges two resets, the way
a censoring or "intrusion prevention" middlebox does:
  - to the sender (the client), spoofed from the destination (the server): RST|ACK with
    seq = the segment's ack number, ack = its seq + payload length; sent at once, so it
    reaches the client long before the real server could have answered;
  - to the destination (the server), spoofed from the sender: RST|ACK with seq = the
    segment's seq + payload length (what the server expects next once it has the
    segment), ack = the segment's ack; sent --server-delay-ms later, after the real segment
    has reached the server.
The forged packets are built by hand (IP_HDRINCL): TTL --ttl, IP ID --ip-id (+1 for the
second), DF clear, no TCP options, window --win; the real hosts' packets differ in all of
these. Runs at most --duration seconds; prints one JSON line per injection.
"""
import argparse, json, select, socket, struct, time

ap = argparse.ArgumentParser()
ap.add_argument("--iface", required=True)
ap.add_argument("--match", required=True)
ap.add_argument("--ttl", type=int, default=64)
ap.add_argument("--ip-id", type=lambda x: int(x, 0), default=0x2a2a)
ap.add_argument("--win", type=int, default=0)
ap.add_argument("--server-delay-ms", type=float, default=15.0)
ap.add_argument("--duration", type=float, default=30.0)
a = ap.parse_args()
match = a.match.encode()
ETH_P_IP = 0x0800
PACKET_OUTGOING = 4


def csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def rst(src, dst, sport, dport, seq, ack, ip_id):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, 0x14, a.win, 0, 0)
    c = csum(src + dst + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ip_id, 0, a.ttl, 6, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + tcp


sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
sniff.bind((a.iface, 0))
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
print(json.dumps({"ev": "start", "iface": a.iface, "match": a.match}), flush=True)
t0 = time.monotonic()
end = t0 + a.duration
done = set()
pending = []  # (when, packet, dst)
while time.monotonic() < end:
    now = time.monotonic()
    w = min(0.2, end - now)
    if pending:
        w = max(0.0, min(w, pending[0][0] - now))
    r, _, _ = select.select([sniff], [], [], w)
    now = time.monotonic()
    while pending and pending[0][0] <= now:
        _, pkt, dst = pending.pop(0)
        raw.sendto(pkt, (dst, 0))
        print(json.dumps({"ev": "sent-to-server", "t": round(now - t0, 4)}), flush=True)
    if not r:
        continue
    frame, addr = sniff.recvfrom(65536)
    if addr[2] == PACKET_OUTGOING:
        continue
    p = frame[14:] if addr[1] == ETH_P_IP and len(frame) > 14 and frame[12:14] == b"\x08\x00" else frame
    if len(p) < 40 or p[0] >> 4 != 4 or p[9] != 6:
        continue
    ihl = (p[0] & 15) * 4
    tot = struct.unpack("!H", p[2:4])[0]
    sport, dport, seq, ack, off = struct.unpack("!HHIIB", p[ihl:ihl + 13])
    data = p[ihl + (off >> 4) * 4:tot]
    if match not in data:
        continue
    key = (p[12:16], sport, p[16:20], dport)
    if key in done:
        continue
    done.add(key)
    src, dst = p[12:16], p[16:20]
    raw.sendto(rst(dst, src, dport, sport, ack, (seq + len(data)) & 0xFFFFFFFF, a.ip_id), (socket.inet_ntoa(src), 0))
    pending.append((now + a.server_delay_ms / 1000.0,
                    rst(src, dst, sport, dport, (seq + len(data)) & 0xFFFFFFFF, ack, (a.ip_id + 1) & 0xFFFF),
                    socket.inet_ntoa(dst)))
    print(json.dumps({"ev": "sent-to-client", "t": round(now - t0, 4), "flow": "%s:%d>%s:%d" % (
        socket.inet_ntoa(src), sport, socket.inet_ntoa(dst), dport), "seq": seq, "len": len(data)}), flush=True)
print(json.dumps({"ev": "end", "injected": len(done)}), flush=True)
