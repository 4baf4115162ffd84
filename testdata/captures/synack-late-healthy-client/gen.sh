#!/bin/bash
# This capture is made by ../synack-late-client/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../synack-late-client/gen.sh" "$@"
