#!/usr/bin/env bash
# Runs a pcapdoc binary over every capture in testdata/ and ../shared/traces:
# it must never crash or trip a sanitizer; unreadable files must exit 3
# with a message. Prints one line per file and a closing count.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/pcapdoc}
shared=${PD_SHARED:-../shared}
pass=0
fail=0
while IFS= read -r -d '' f; do
	err=$(mktemp)
	"$bin" -q --format json "$f" >/dev/null 2>"$err" </dev/null
	rc=$?
	if [ $rc -ge 128 ] || grep -q "Sanitizer\|runtime error" "$err"; then
		echo "FAIL rc=$rc $f"
		sed -n 1,30p "$err"
		fail=$((fail + 1))
	elif [ $rc -eq 3 ] && ! grep -q "$(basename "$f")" "$err"; then
		echo "FAIL rc=3 without a message naming the file: $f"
		fail=$((fail + 1))
	else
		echo "ok   rc=$rc $f"
		pass=$((pass + 1))
	fi
	rm -f "$err"
done < <(find testdata "$shared/traces" -type f \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.gz' -o -name '*.cap' \) -print0 2>/dev/null | sort -z)
echo "captures: $pass passed, $fail failed"
[ $fail -eq 0 ]
