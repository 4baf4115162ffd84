#!/bin/bash
# frag-capdrop-tcp (fragment frames deleted) and ../frag-capdrop-tcp-full (the untouched capture), one run:
# see ../tools/frag_capdrop.sh tcp (run as root, ~6 s, cleans up).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../tools/frag_capdrop.sh" tcp "$D/../frag-capdrop-tcp-full/frag-capdrop-tcp-full.pcap" "$D/frag-capdrop-tcp.pcap"
