#!/bin/bash
# This capture is made by ../spurious-rto-server/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../spurious-rto-server/gen.sh" "$@"
