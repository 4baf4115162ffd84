#!/bin/bash
# slowapp-client and slowapp-server, one run: ../tools/px2_run.sh slowapp
# (run as root, ~8 s, namespaces px2-slowapp-*, 10.202.0.0/16, cleans up).
exec "$(cd "$(dirname "$0")" && pwd)/../tools/px2_run.sh" slowapp
