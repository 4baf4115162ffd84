#!/bin/bash
# cork-client and cork-server, one run: ../tools/px2_run.sh cork
# (run as root, ~7 s, namespaces px2-cork-*, 10.202.0.0/16, cleans up).
exec "$(cd "$(dirname "$0")" && pwd)/../tools/px2_run.sh" cork
