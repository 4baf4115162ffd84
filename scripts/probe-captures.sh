#!/usr/bin/env bash
# Runs a pcapdoc binary over every crafted probe (testdata/probes) and every
# regression input (testdata/regress) at --threads 1, 2 and 4, with the
# options testdata/probes/options gives, with the engine's invariant checks on
# (PD_CHECK=1). A run fails on a crash or a hang, a broken invariant, a
# sanitizer report or a GLib critical on stderr, or an exit status other than
# 0, 1, 3 or 4 (pcapdoc(1)); a capture fails when its JSON report (with
# --flows) or its exit status differs between thread counts. First checks
# that the generators still write the committed files, byte for byte.
# Usage: probe-captures.sh [PCAPDOC] [CAPTURE...]   (default: every one)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bin=${1:-build/pcapdoc}
shift || true
threads=(1 2 4)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=()

# --- the committed files are what the generators write
if command -v python3 >/dev/null; then
	if python3 testdata/probes/gen_probes.py "$tmp/gen" && python3 testdata/regress/gen_pmtu_park.py "$tmp/gen"; then
		for g in "$tmp"/gen/*; do
			name=$(basename "$g")
			case $name in pmtu-park-*) dir=testdata/regress ;; *) dir=testdata/probes ;; esac
			if [ ! -f "$dir/$name" ]; then
				echo "FAIL $dir/$name: written by its generator, not committed"
				failed+=("$dir/$name")
			elif [[ $name == *.gz ]]; then
				# zlib versions compress differently: compare what is inside
				cmp -s <(gzip -dc "$g") <(gzip -dc "$dir/$name") || { echo "FAIL $dir/$name: differs from what its generator writes"; failed+=("$dir/$name"); }
			else
				cmp -s "$g" "$dir/$name" || { echo "FAIL $dir/$name: differs from what its generator writes"; failed+=("$dir/$name"); }
			fi
			if [ "$dir" = testdata/probes ] && [ "$name" != options ] && ! grep -q "^| $name |" testdata/probes/README.md; then
				echo "FAIL $dir/$name: no line in testdata/probes/README.md"
				failed+=("$dir/$name")
			fi
		done
		for f in testdata/probes/*.pcap testdata/probes/*.gz; do
			[ -e "$f" ] && [ ! -e "$tmp/gen/$(basename "$f")" ] && { echo "FAIL $f: its generator no longer writes it"; failed+=("$f"); }
		done
	else
		echo "FAIL a generator failed"
		failed+=(generators)
	fi
else
	echo "note: no python3, the generators were not checked"
fi

# --- pcapdoc over each capture
options_of() { # the options line of testdata/probes/options for a file name
	awk -v n="$1" '$1 == n { $1 = ""; print; exit }' testdata/probes/options 2>/dev/null
}

if [ $# -gt 0 ]; then
	captures=("$@")
else
	mapfile -t captures < <(find testdata/probes testdata/regress -maxdepth 1 -type f \
		\( -name '*.pcap' -o -name '*.pcapng' -o -name '*.gz' \) | sort)
fi
runs=0
for f in "${captures[@]}"; do
	read -r -a opts <<<"$(options_of "$(basename "$f")")"
	bad=0
	for t in "${threads[@]}"; do
		out=$tmp/out.$t err=$tmp/err.$t
		PD_CHECK=1 timeout 300 "$bin" -q --format json --flows --threads "$t" "${opts[@]}" "$f" >"$out" 2>"$err" </dev/null
		rc=$?
		echo "$rc" >"$tmp/rc.$t"
		runs=$((runs + 1))
		why=""
		if [ $rc -eq 124 ]; then
			why="no report in 300 s"
		elif [ $rc -ge 128 ]; then
			why="killed by signal $((rc - 128))"
		elif grep -qE 'Sanitizer|runtime error|CRITICAL \*\*|invariant broken' "$err"; then
			why="sanitizer, GLib or invariant report (exit $rc)"
		elif [ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 3 ] && [ $rc -ne 4 ]; then
			why="exit $rc"
		fi
		if [ -n "$why" ]; then
			echo "FAIL $f --threads $t ${opts[*]}: $why"
			grep -E -m1 'ERROR: |runtime error|CRITICAL|invariant broken' "$err" | sed 's/^/    /'
			grep -E '^ *#[0-9]+ ' "$err" | head -8 | sed 's/^/    /'
			[ -s "$err" ] || echo "    (nothing on stderr)"
			grep -qE '^ *#[0-9]+ ' "$err" || sed -n 1,10p "$err" | sed 's/^/    /'
			bad=1
		fi
	done
	if [ $bad -eq 0 ]; then
		for t in "${threads[@]:1}"; do
			if [ "$(cat "$tmp/rc.1")" != "$(cat "$tmp/rc.$t")" ]; then
				echo "FAIL $f: exit $(cat "$tmp/rc.1") with --threads 1, $(cat "$tmp/rc.$t") with --threads $t"
				bad=1
			elif ! cmp -s "$tmp/out.1" "$tmp/out.$t"; then
				echo "FAIL $f: the report with --threads $t differs from --threads 1"
				diff -u "$tmp/out.1" "$tmp/out.$t" | sed -n 3,20p | sed 's/^/    /'
				bad=1
			fi
		done
	fi
	if [ $bad -eq 0 ]; then
		echo "ok   rc=$(cat "$tmp/rc.1") $f ${opts[*]}"
	else
		failed+=("$f")
	fi
done
mapfile -t failed < <(printf '%s\n' "${failed[@]}" | sed '/^$/d' | sort -u)
echo "probes: ${#captures[@]} captures, $runs runs, ${#failed[@]} failed"
for f in "${failed[@]}"; do
	echo "  failed: $f"
done
[ ${#failed[@]} -eq 0 ]
