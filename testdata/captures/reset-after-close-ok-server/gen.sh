#!/bin/bash
# reset-after-close-ok-client and reset-after-close-ok-server, one run: ../tools/px2_run.sh closeok
# (run as root, ~3 s, namespaces px2-closeok-*, 10.202.0.0/16, cleans up).
exec "$(cd "$(dirname "$0")" && pwd)/../tools/px2_run.sh" closeok
