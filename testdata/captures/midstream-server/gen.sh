#!/bin/bash
# This capture is made by ../midstream-client/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../midstream-client/gen.sh" "$@"
