#!/usr/bin/python3
"""Userspace tunnel endpoint for pcapdoc golden captures, for the tunnel
types this kernel build lacks (no ip_gre / geneve modules).

  tunencap.py --mode gre|gretap|erspan|geneve --dev NAME --local A --remote B
              [--id N] [--mtu M] --duration S

It creates a TUN (gre: inner IP packets) or TAP (gretap, erspan, geneve:
inner Ethernet frames) device NAME and moves every packet the kernel sends
into it to the remote endpoint, and every packet from the remote endpoint
back into it. The outer IPv4 header (and for GENEVE the outer UDP header) is
built by the kernel: GRE-family packets go through a raw IPPROTO_GRE socket,
GENEVE through a UDP socket bound to port 6081. This program writes only
the tunnel header:
  gre     GRE, no flags, protocol 0x0800 / 0x86DD, then the inner IP packet
  gretap  GRE, no flags, protocol 0x6558 (transparent Ethernet bridging)
  erspan  GRE with a sequence number (flags 0x1000), protocol 0x88BE, then an
          ERSPAN type II header (version 1, VLAN 0, COS 0, En 0, T 0,
          session ID --id, index 0), as Linux `ip link add type erspan
          erspan_ver 1` sends, then the inner Ethernet frame
  geneve  UDP 6081 -> 6081, GENEVE version 0, no options, protocol 0x6558,
          VNI --id, then the inner Ethernet frame
Nothing is ever dropped on purpose. Exits after --duration seconds.
"""
import argparse, fcntl, os, select, socket, struct, time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_TAP, IFF_NO_PI = 0x0001, 0x0002, 0x1000
GENEVE_PORT = 6081

ap = argparse.ArgumentParser()
ap.add_argument("--mode", choices=["gre", "gretap", "erspan", "geneve"], required=True)
ap.add_argument("--dev", required=True)
ap.add_argument("--local", required=True)
ap.add_argument("--remote", required=True)
ap.add_argument("--id", type=int, default=1)
ap.add_argument("--duration", type=float, default=60.0)
a = ap.parse_args()

tap = a.mode != "gre"
fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", a.dev.encode(), (IFF_TAP if tap else IFF_TUN) | IFF_NO_PI))

if a.mode == "geneve":
    sk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sk.bind((a.local, GENEVE_PORT))
else:
    sk = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
    sk.bind((a.local, 0))
sk.setblocking(False)
remote_b = socket.inet_aton(a.remote)
seq = 0


def encap(pkt):
    global seq
    if a.mode == "gre":
        proto = 0x86DD if pkt[0] >> 4 == 6 else 0x0800
        return struct.pack("!HH", 0, proto) + pkt
    if a.mode == "gretap":
        return struct.pack("!HH", 0, 0x6558) + pkt
    if a.mode == "erspan":
        seq += 1
        gre = struct.pack("!HHI", 0x1000, 0x88BE, seq)
        # ver 1 | vlan 0 ; cos 0, en 0, t 0, session id ; reserved 0 | index 0
        ers = struct.pack("!HHI", (1 << 12) | 0, a.id & 0x3FF, 0)
        return gre + ers + pkt
    # geneve: ver 0, opt len 0, O 0, C 0, protocol, VNI, reserved
    return struct.pack("!BBH", 0, 0, 0x6558) + struct.pack("!I", (a.id & 0xFFFFFF) << 8) + pkt


def decap(data):
    """Outer payload (after the IP header for GRE) -> inner packet or None."""
    if a.mode == "geneve":
        if len(data) < 8 or data[0] >> 6 != 0:
            return None
        optlen = (data[0] & 0x3F) * 4
        if struct.unpack("!H", data[2:4])[0] != 0x6558:
            return None
        return data[8 + optlen:]
    if len(data) < 4:
        return None
    flags, proto = struct.unpack("!HH", data[:4])
    off = 4
    if flags & 0x8000:
        off += 4  # checksum + reserved
    if flags & 0x2000:
        off += 4  # key
    if flags & 0x1000:
        off += 4  # sequence
    if a.mode == "gre" and proto in (0x0800, 0x86DD):
        return data[off:]
    if a.mode == "gretap" and proto == 0x6558:
        return data[off:]
    if a.mode == "erspan" and proto == 0x88BE:
        return data[off + 8:]
    return None


n_out = n_in = n_bad = 0
end = time.monotonic() + a.duration
print(f"tunencap: ready mode={a.mode} dev={a.dev} {a.local} -> {a.remote}", flush=True)
while time.monotonic() < end:
    r, _, _ = select.select([fd, sk], [], [], 0.2)
    if fd in r:
        for _ in range(256):
            try:
                pkt = os.read(fd, 65536)
            except BlockingIOError:
                break
            try:
                if a.mode == "geneve":
                    sk.sendto(encap(pkt), (a.remote, GENEVE_PORT))
                else:
                    sk.sendto(encap(pkt), (a.remote, 0))
                n_out += 1
            except OSError:
                n_bad += 1
    if sk in r:
        for _ in range(256):
            try:
                data, peer = sk.recvfrom(65536)
            except BlockingIOError:
                break
            if a.mode != "geneve":
                if data[12:16] != remote_b:
                    continue
                data = data[(data[0] & 0x0F) * 4:]
            elif peer[0] != a.remote:
                continue
            inner = decap(data)
            if inner is None:
                n_bad += 1
                continue
            try:
                os.write(fd, inner)
                n_in += 1
            except OSError:
                n_bad += 1
print(f"tunencap: sent={n_out} received={n_in} bad={n_bad}", flush=True)
