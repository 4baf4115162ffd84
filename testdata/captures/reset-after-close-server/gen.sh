#!/bin/bash
# reset-after-close-client and reset-after-close-server, one run: ../tools/px2_run.sh close
# (run as root, ~3 s, namespaces px2-close-*, 10.202.0.0/16, cleans up).
exec "$(cd "$(dirname "$0")" && pwd)/../tools/px2_run.sh" close
