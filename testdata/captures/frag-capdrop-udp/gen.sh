#!/bin/bash
# frag-capdrop-udp (fragment frames deleted) and ../frag-capdrop-udp-full (the untouched capture), one run:
# see ../tools/frag_capdrop.sh udp (run as root, ~6 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/frag_capdrop.sh" udp "$D/../frag-capdrop-udp-full/frag-capdrop-udp-full.pcap" "$D/frag-capdrop-udp.pcap"
