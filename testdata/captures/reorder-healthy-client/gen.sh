#!/bin/bash
# This capture is made by ../reorder-client/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../reorder-client/gen.sh" "$@"
