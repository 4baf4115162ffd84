#!/usr/bin/python3
"""tapswitch.py --mode tap|tun --a NS:DEV --b NS:DEV [--mirror NS:DEV --tags TPID:VID,...] [--timeout S]

A tiny userspace "wire" between two network namespaces: copies every frame (tap) or IP
packet (tun) read from device A to device B and back.  The devices must already exist
(ip tuntap add ... mode tap|tun) in the named namespaces.  With --mirror, every forwarded
frame is also written, with the given 802.1Q/802.1ad tags inserted after the MAC addresses
(outermost first, e.g. 0x88a8:200,0x8100:100), into a third tap device: tcpdump on that tap
then sees the conversation as on a tagged trunk/SPAN port.  Bounded by --timeout seconds."""
import argparse, ctypes, fcntl, os, select, struct, time

ap = argparse.ArgumentParser()
ap.add_argument('--mode', choices=['tap', 'tun'], required=True)
ap.add_argument('--a', required=True)
ap.add_argument('--b', required=True)
ap.add_argument('--mirror')
ap.add_argument('--tags', default='')
ap.add_argument('--timeout', type=float, default=60)
args = ap.parse_args()

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454ca
IFF_TUN, IFF_TAP, IFF_NO_PI = 0x1, 0x2, 0x1000


def open_dev(spec, flags):
    ns, dev = spec.split(':')
    nfd = os.open('/run/netns/' + ns, os.O_RDONLY)
    if libc.setns(nfd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), 'setns ' + ns)
    os.close(nfd)
    fd = os.open('/dev/net/tun', os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', dev.encode(), flags | IFF_NO_PI))
    return fd


flags = IFF_TAP if args.mode == 'tap' else IFF_TUN
a = open_dev(args.a, flags)
b = open_dev(args.b, flags)
m = open_dev(args.mirror, IFF_TAP) if args.mirror else None
tagbytes = b''
for t in filter(None, args.tags.split(',')):
    tpid, vid = t.split(':')
    tagbytes += struct.pack('!HH', int(tpid, 0), int(vid))
print('tapswitch ready', flush=True)
deadline = time.time() + args.timeout
while time.time() < deadline:
    r, _, _ = select.select([a, b], [], [], 0.5)
    for fd in r:
        pkt = os.read(fd, 65536)
        os.write(b if fd == a else a, pkt)
        if m is not None:
            os.write(m, pkt[:12] + tagbytes + pkt[12:])
