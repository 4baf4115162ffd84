#!/bin/bash
# bulk-rtt40-router: see README.md. tools/px1_run.sh bulk40r: the recipe of ../bulk-rtt40-client|server
# in a run of its own, captured in the router. Run as root; bounded; cleans up.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
exec bash "$HERE/../tools/px1_run.sh" bulk40r
