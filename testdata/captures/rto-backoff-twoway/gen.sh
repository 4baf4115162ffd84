#!/bin/bash
# This capture is made by ../rto-backoff-oneway/gen.sh (one run writes four folders).
exec "$(cd "$(dirname "$0")" && pwd)/../rto-backoff-oneway/gen.sh" "$@"
