#!/usr/bin/env bash
# Quick start: set up, build, and diagnose a bundled capture.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build >/dev/null
exec ./build/pcapdoc "${@:-testdata/captures/syn-drop-recover/syn-drop-recover.pcap}"
