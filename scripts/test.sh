#!/usr/bin/env bash
# Runs the whole test suite: a normal build and an ASan+UBSan build, each
# with `meson test`, plus pcapdoc itself over every bundled and public
# capture under the sanitizers. Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
export PD_WITH_TEST_TOOLS=1
scripts/setup.sh build
meson test -C build --print-errorlogs --num-processes 2

# Sanitizer build: every test again, including scan_captures, which runs the
# binary itself over every capture (criterion's forked workers hide leaks).
scripts/setup.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
meson test -C build-asan --print-errorlogs --num-processes 2
