#!/bin/bash
# tunnel-vxlan-healthy: see ../tools/tunnel_zerowin.sh (run as root, ~10 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/tunnel_zerowin.sh" vxlan-healthy "$D/tunnel-vxlan-healthy.pcap"
