#!/bin/bash
# Made in the same run as ../frag-capdrop-udp (this is the capture before any frame was deleted).
D=$(cd "$(dirname "$0")" && pwd)
exec "$D/../frag-capdrop-udp/gen.sh"
