#!/usr/bin/env bash
# Installs what pcapdoc needs on Debian 12 (when missing) and builds it.
# Usage: scripts/setup.sh [BUILD_DIR] [extra meson setup options...]
# Needs root (or sudo) only when packages are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

build_pkgs=(gcc clang pkg-config meson ninja-build python3 libpcap-dev libndpi-dev
            libglib2.0-dev libcjson-dev libcriterion-dev zlib1g-dev)
# Test-time cross-checks and tools (never runtime dependencies); chromium
# renders the HTML report in tests/test_html.c.
test_pkgs=(tshark tcpdump libclang-rt-14-dev valgrind time chromium)
want=("${build_pkgs[@]}")
if [ "${PD_WITH_TEST_TOOLS:-0}" = 1 ]; then
	want+=("${test_pkgs[@]}")
fi

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	SUDO=""
	[ "$(id -u)" -eq 0 ] || SUDO="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

build=${1:-build}
shift || true
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$@"
fi
ninja -C "$build"
