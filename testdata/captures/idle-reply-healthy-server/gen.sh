#!/bin/bash
# This capture is made by ../idle-reply-client/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../idle-reply-client/gen.sh" "$@"
