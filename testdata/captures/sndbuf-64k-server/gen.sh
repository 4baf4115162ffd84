#!/bin/bash
# sndbuf-64k-server: see README.md. One run of tools/px1_run.sh sndbuf64k makes every vantage of this
# scenario (the sibling folders named in README.md). Run as root; bounded; cleans up.
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
exec bash "$HERE/../tools/px1_run.sh" sndbuf64k
