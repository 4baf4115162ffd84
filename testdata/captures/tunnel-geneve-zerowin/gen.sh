#!/bin/bash
# tunnel-geneve-zerowin: see ../tools/tunnel_zerowin.sh (run as root, ~10 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/tunnel_zerowin.sh" geneve "$D/tunnel-geneve-zerowin.pcap"
