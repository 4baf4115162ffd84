#!/bin/bash
# tunnel-erspan-zerowin: see ../tools/tunnel_zerowin.sh (run as root, ~10 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/tunnel_zerowin.sh" erspan "$D/tunnel-erspan-zerowin.pcap"
