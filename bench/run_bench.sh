#!/bin/bash
# pcapdoc throughput and memory benchmark; see docs/performance.md.
#
#   run_bench.sh GEN_CAPTURE BARE_LOOP PCAPDOC
#
# Run through meson: `meson test -C build --benchmark --verbose`.
# For every slice size it generates a capture into a temporary directory
# (deleted afterwards), reads it once, then times each tool on it with
# /usr/bin/time (wall seconds and peak RSS) and prints one table. Every tool
# reads it from the page cache: the figures are CPU, not disk.
#
# Environment:
#   PD_BENCH_SIZES       slice sizes in MB (default "100 300 1000")
#   PD_BENCH_REPEAT      rounds of bare_loop and pcapdoc per slice, taking turns,
#                        best run of each kept (default 5)
#   PD_BENCH_TSHARK_MB   largest slice tshark is run on (default 100; 0 = never):
#                        tshark keeps every frame's state, so it is slow and
#                        its memory grows with the file
#   PD_BENCH_TCPTRACE_MB largest slice tcptrace is run on (default 1000)
#   PD_BENCH_TMPDIR      where the slices are written (default $TMPDIR or /tmp)
#   PD_BENCH_CSV         also write the rows to this CSV file
#   PD_BENCH_STRICT=1    exit 1 when a goal is missed (default: report only)
#   PD_BENCH_PCAPDOC_ARGS  extra pcapdoc arguments
#   PD_BENCH_FLOOR=1     also time pcapdoc with nDPI off (row pd-nondpi), with
#                        no detector (pd-nodet) and with neither (pd-floor):
#                        what each part costs, and how fast the rest can be
#   PD_BENCH_FRONTEND    1: after the slices above, the front-end slices
#                        (busy reverse proxy: 10^4-10^5 keep-alive connections
#                        alive at once; gen_capture --frontend); "only": just
#                        those; 0 (default): not them (they take ~4 minutes)
#   PD_BENCH_FE_SLICES   front-end slices as NAME:LIVE:MB (default
#                        "fe10k:12000:1000 fe100k:180000:2000": ~12 000 and
#                        ~99 000 TCP connections alive at once at their peak)
#   PD_BENCH_FE_REPEAT   rounds on each front-end slice, best kept (default 3)
#   PD_BENCH_FE_TCPTRACE rounds of tcptrace among them (default 1; 0 = none)
#   PD_BENCH_FE_TSHARK_MB  also a slice of this many MB of each front end, for
#                        tshark -q -z expert and pcapdoc (default 100; 0 = none)
#
# pcapdoc runs with its default --threads (the number of cores), and again
# with --threads 1 (row pcapdoc-1t; its "pcapdoc x faster" is the scaling).
#
# The front-end slices get a table of their own: each tool's best wall time,
# its least CPU (all threads) and that per packet, packets/s, ratio to the
# bare loop, peak RSS, the peak of TCP connections alive at once (the bare
# loop's count; pcapdoc's own is in its --stats lines) and the bytes each
# costs: (peak RSS - the same tool's RSS on an empty capture) / that peak. pcapdoc runs with its default threads, --threads 1 and
# --threads 2; the "evicted" column is what its --max-flows cap finalized
# early (from its JSON report). Under the table, issue 37's goals for these
# slices, ok or MISS (PD_BENCH_STRICT counts them): CPU per packet over all
# threads, RSS per live TCP connection, the share of it --stats accounts,
# speed against the bare loop, the serial part (the bound on a machine with
# cores enough) and the peers; with PD_BENCH_FLOOR, what each part costs.
set -u
export LC_ALL=C

GEN=${1:?usage: run_bench.sh GEN_CAPTURE BARE_LOOP PCAPDOC}
BARE=${2:?}
PCAPDOC=${3:?}
SIZES=${PD_BENCH_SIZES:-"100 300 1000"}
REPEAT=${PD_BENCH_REPEAT:-5}
[[ $REPEAT =~ ^[0-9]+$ ]] && [ "$REPEAT" -ge 1 ] || REPEAT=1
TSHARK_MB=${PD_BENCH_TSHARK_MB:-100}
TCPTRACE_MB=${PD_BENCH_TCPTRACE_MB:-1000}
STRICT=${PD_BENCH_STRICT:-0}
# One goal's line in the awk programs below, a miss counted for STRICT.
VERDICT_AWK='function verdict(ok, what) { printf "  %-4s %s\n", ok ? "ok" : "MISS", what; if (!ok) miss++ }'
FLOOR=${PD_BENCH_FLOOR:-0}
FRONTEND=${PD_BENCH_FRONTEND:-0}
FE_SLICES=${PD_BENCH_FE_SLICES:-"fe10k:12000:1000 fe100k:180000:2000"}
FE_REPEAT=${PD_BENCH_FE_REPEAT:-3}
[[ $FE_REPEAT =~ ^[0-9]+$ ]] && [ "$FE_REPEAT" -ge 1 ] || FE_REPEAT=1
FE_TCPTRACE=${PD_BENCH_FE_TCPTRACE:-1}
FE_TSHARK_MB=${PD_BENCH_FE_TSHARK_MB:-100}
[[ $FE_TSHARK_MB =~ ^[0-9]+$ ]] || FE_TSHARK_MB=100
[[ $FE_TCPTRACE =~ ^[0-9]+$ ]] || FE_TCPTRACE=1
[ "$FRONTEND" = only ] && SIZES=""
CSV=${PD_BENCH_CSV:-}
PCAPDOC_ARGS=${PD_BENCH_PCAPDOC_ARGS:-}

TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "run_bench: /usr/bin/time is missing (Debian: apt-get install time)" >&2
	exit 77 # meson: skipped
fi
TSHARK=$(command -v tshark || true)
TCPTRACE=$(command -v tcptrace || true)

WORK=$(mktemp -d "${PD_BENCH_TMPDIR:-${TMPDIR:-/tmp}}/pcapdoc-bench.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT INT TERM

ROWS=$WORK/rows # tool slice_mb seconds packets bytes rss_kb
: >"$ROWS"
FAILED=0

# time_run OUT_PREFIX CMD... : runs CMD, stdout to OUT_PREFIX.out, sets
# SECS, CPU_S and RSS_KB; returns the command's status.
# Wall time from the nanosecond clock around the run (/usr/bin/time's %e
# has 10 ms steps, too coarse for the bare loop); CPU (user + system, all
# threads) from %U and %S; peak RSS from %M.
time_run() {
	local pfx=$1
	shift
	local t0 t1
	t0=$(date +%s%N)
	"$TIME" -f '%M %U %S' -o "$pfx.time" "$@" >"${TR_OUT:-$pfx.out}" 2>"$pfx.err"
	local rc=$?
	t1=$(date +%s%N)
	SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", (b - a) / 1e9}')
	# the last line: /usr/bin/time may first say "Command exited with non-zero status"
	local last
	last=$(tail -n 1 "$pfx.time" 2>/dev/null)
	RSS_KB=${last%% *}
	[[ $RSS_KB =~ ^[0-9]+$ ]] || RSS_KB=0
	CPU_S=$(awk '{printf "%.2f", $2 + $3}' <<<"$last")
	return $rc
}

# keep_best NAME: after time_run, keeps the fastest run of NAME so far
# (and that run's RSS) in BEST_S[NAME] and BEST_M[NAME], and the least CPU
# of its runs in BEST_C[NAME] (CPU moves less with the machine's load)
declare -A BEST_S BEST_M BEST_C
keep_best() {
	if [ -z "${BEST_S[$1]:-}" ] || awk -v a="$SECS" -v b="${BEST_S[$1]}" 'BEGIN{exit !(a<b)}'; then
		BEST_S[$1]=$SECS
		BEST_M[$1]=$RSS_KB
	fi
	if [ -z "${BEST_C[$1]:-}" ] || awk -v a="$CPU_S" -v b="${BEST_C[$1]}" 'BEGIN{exit !(a<b)}'; then
		BEST_C[$1]=$CPU_S
	fi
}

# warm FILE: reads the slice once, so that the timed runs read it from the
# page cache even where the kernel has since reclaimed some of what the
# generator wrote (seen on this project's VMs: a 1 GB slice 207 MB cached
# minutes after it was written)
warm() {
	cat "$1" >/dev/null
}

# pd_round NAME ARGS...: one pcapdoc run on the slice $cap with these
# arguments, kept as NAME by keep_best; returns pcapdoc's status when it
# is neither 0 nor 1 (1 only means findings at or above --fail-on)
pd_round() {
	local name=$1 rc
	shift
	# shellcheck disable=SC2086
	time_run "$WORK/$name" "$PCAPDOC" -q "$@" $PCAPDOC_ARGS "$cap"
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
		return $rc
	fi
	keep_best "$name"
}

[ -n "$SIZES" ] && echo "pcapdoc benchmark: slices ${SIZES// /, } MB; bare_loop and pcapdoc take turns, best of $REPEAT rounds"
echo "machine: $(nproc) CPU ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, $(uname -sr)"
[ -n "$TSHARK" ] && echo "tshark: $($TSHARK --version 2>/dev/null | head -n1)"
[ -n "$TCPTRACE" ] && echo "tcptrace: $($TCPTRACE -v 2>&1 | grep -m1 -i version | sed 's/^ *//')"
echo

for mb in $SIZES; do
	cap=$WORK/slice-$mb.pcap
	if ! "$GEN" "$cap" "$mb" 2>"$WORK/gen-$mb.log"; then
		echo "run_bench: gen_capture $mb failed:" >&2
		cat "$WORK/gen-$mb.log" >&2
		exit 1
	fi
	sed -n '1p' "$WORK/gen-$mb.log"
	sed -n '2,$p' "$WORK/gen-$mb.log"
	bytes=$(stat -c %s "$cap")
	warm "$cap"

	# The bare loop and pcapdoc (default threads, then one thread) take
	# turns, REPEAT rounds, best run of each kept: a slow moment of the
	# machine (this VM's first touches of memory vary tenfold) then hits
	# all three alike rather than whichever ran during it.
	BEST_S=()
	BEST_M=()
	pd_ok=1
	pd1_ok=1
	for ((round = 0; round < REPEAT; round++)); do
		if ! time_run "$WORK/bare" "$BARE" "$cap"; then
			echo "run_bench: bare_loop failed on $mb MB: $(cat "$WORK/bare.err")" >&2
			exit 1
		fi
		keep_best bare
		if [ "$pd_ok" = 1 ]; then
			pd_round pd --format json -o /dev/null
			rc=$?
			if [ $rc -ne 0 ]; then
				echo "run_bench: pcapdoc failed on $mb MB (status $rc): $(head -c 2000 "$WORK/pd.err")" >&2
				FAILED=1
				pd_ok=0
			fi
		fi
		# the same on one thread: how much the default (one thread per core) gains
		if [ "$pd1_ok" = 1 ]; then
			pd_round pd1 --threads 1 --format json -o /dev/null || pd1_ok=0
		fi
		if [ "$FLOOR" = 1 ]; then
			pd_round nondpi --no-ndpi --format json -o /dev/null
			pd_round nodet --no-detectors --format json -o /dev/null
			pd_round floor --no-ndpi --no-detectors --format json -o /dev/null
		fi
	done
	packets=$(awk '{print $2}' "$WORK/bare.out")
	echo "bare_loop $mb ${BEST_S[bare]} $packets $bytes ${BEST_M[bare]}" >>"$ROWS"
	echo "  bare_loop: $(cat "$WORK/bare.out")"
	[ "$pd_ok" = 1 ] && echo "pcapdoc $mb ${BEST_S[pd]} $packets $bytes ${BEST_M[pd]}" >>"$ROWS"
	[ "$pd1_ok" = 1 ] && echo "pcapdoc-1t $mb ${BEST_S[pd1]} $packets $bytes ${BEST_M[pd1]}" >>"$ROWS"
	for f in nondpi nodet floor; do
		[ -n "${BEST_S[$f]:-}" ] && echo "pd-$f $mb ${BEST_S[$f]} $packets $bytes ${BEST_M[$f]}" >>"$ROWS"
	done

	if [ -n "$TCPTRACE" ] && [ "$mb" -le "$TCPTRACE_MB" ]; then
		# -n: no reverse DNS (it would block on the network)
		if time_run "$WORK/tt" "$TCPTRACE" -n -l "$cap"; then
			echo "tcptrace $mb $SECS $packets $bytes $RSS_KB" >>"$ROWS"
		else
			echo "run_bench: tcptrace failed on $mb MB" >&2
		fi
		rm -f "$WORK/tt.out"
	fi
	if [ -n "$TSHARK" ] && [ "$mb" -le "$TSHARK_MB" ]; then
		if time_run "$WORK/ts" "$TSHARK" -n -q -z expert -r "$cap"; then
			echo "tshark $mb $SECS $packets $bytes $RSS_KB" >>"$ROWS"
		else
			echo "run_bench: tshark failed on $mb MB" >&2
		fi
	fi
	rm -f "$cap"
	echo
done

# The table. ratio = this tool's packets/s over bare_loop's on the same slice.
[ -s "$ROWS" ] && awk -v csv="$CSV" '
{
	tool[NR] = $1; mb[NR] = $2; s[NR] = $3; p[NR] = $4; b[NR] = $5; rss[NR] = $6
	if ($1 == "bare_loop") bare[$2] = ($3 > 0 ? $4 / $3 : 0)
	if ($1 == "pcapdoc") pd[$2] = ($3 > 0 ? $4 / $3 : 0)
	n = NR
}
END {
	fmt = "%-10s %6s %9s %11s %9s %10s %11s %9s\n"
	printf fmt, "tool", "slice", "seconds", "packets/s", "MB/s", "peak RSS", "vs bare", "pcapdoc x"
	printf fmt, "", "MB", "", "", "", "MiB", "(pkt/s)", "faster"
	if (csv != "") print "tool,slice_mb,seconds,packets,bytes,packets_per_s,mb_per_s,peak_rss_mib,ratio_vs_bare" > csv
	for (i = 1; i <= n; i++) {
		secs = s[i] > 0 ? s[i] : 0.001
		pps = p[i] / secs
		mbs = b[i] / 1e6 / secs
		ratio = bare[mb[i]] > 0 ? pps / bare[mb[i]] : 0
		vs = (tool[i] != "pcapdoc" && tool[i] != "bare_loop" && tool[i] !~ /^pd-/ && pps > 0 && pd[mb[i]] > 0) ? sprintf("%.1fx", pd[mb[i]] / pps) : ""
		printf "%-10s %6d %9.3f %11.0f %9.1f %10.1f %11.3f %9s\n", tool[i], mb[i], s[i], pps, mbs, rss[i] / 1024, ratio, vs
		if (csv != "") printf "%s,%d,%.3f,%d,%d,%.0f,%.1f,%.1f,%.3f\n", tool[i], mb[i], s[i], p[i], b[i], pps, mbs, rss[i] / 1024, ratio >> csv
	}
}' "$ROWS" && echo

# Goals from the issue: >= 0.5 of bare, >= 5x tcptrace, >= 40x tshark,
# peak RSS under 64 MiB and flat across slices.
[ -s "$ROWS" ] && { awk -v strict="$STRICT" "$VERDICT_AWK"'
{
	pps = ($3 > 0 ? $4 / $3 : $4 / 0.001)
	v[$1, $2] = pps; r[$1, $2] = $6 / 1024; has[$1, $2] = 1
	if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 }
}
END {
	print "goals:"
	for (i = 1; i <= k; i++) {
		m = order[i]
		if (!has["pcapdoc", m]) continue
		verdict(v["pcapdoc", m] >= 0.5 * v["bare_loop", m], sprintf("%s MB: pcapdoc at %.2f of the bare loop (goal >= 0.50)", m, v["pcapdoc", m] / v["bare_loop", m]))
		if (has["tcptrace", m]) verdict(v["pcapdoc", m] >= 5 * v["tcptrace", m], sprintf("%s MB: %.1fx tcptrace (goal >= 5x)", m, v["pcapdoc", m] / v["tcptrace", m]))
		if (has["tshark", m]) verdict(v["pcapdoc", m] >= 40 * v["tshark", m], sprintf("%s MB: %.1fx tshark (goal >= 40x)", m, v["pcapdoc", m] / v["tshark", m]))
		verdict(r["pcapdoc", m] < 64, sprintf("%s MB: pcapdoc peak RSS %.1f MiB (goal < 64)", m, r["pcapdoc", m]))
		if (!first) first = m
		last = m
	}
	if (first != last)
		verdict(r["pcapdoc", last] <= 1.15 * r["pcapdoc", first] + 4, sprintf("peak RSS %s MB -> %s MB: %.1f -> %.1f MiB (goal: flat)", first, last, r["pcapdoc", first], r["pcapdoc", last]))
	exit (strict == 1 && miss > 0) ? 1 : 0
}' "$ROWS" || FAILED=1; }

# ------------------------------------------------------------ front end
# Slices from a busy front end (gen_capture --frontend LIVE): tens of
# thousands of keep-alive connections alive at once, mostly idle. Every
# tool takes turns as above; tcptrace runs under a 16 GiB address-space
# limit and a 30-minute timeout (it keeps every connection to the end).
# fe_run NAME FILE: one timed run of tool NAME on FILE
# shellcheck disable=SC2086 # PCAPDOC_ARGS: words
# stats_serial ERR: the busier serial thread's CPU seconds (reading and
# routing, or collecting) from a --stats CPU line; empty without one
stats_serial() {
	sed -n 's/.*CPU: reading and routing \([0-9.]*\) s, .*collector \([0-9.]*\) s.*/\1 \2/p' "$1" 2>/dev/null |
		awk '{print ($1 > $2 ? $1 : $2)}' | head -n 1
}

# stats_accounted ERR: the bytes --stats says the run holds at its peak
# (its "memory: accounted" line, else the flows' blocks and tables); 0 none
stats_accounted() {
	local n
	n=$(sed -n 's/.*stats: memory: accounted \([0-9]*\) bytes.*/\1/p' "$1" 2>/dev/null | head -n 1)
	[ -n "$n" ] || n=$(sed -n 's/.*flow blocks and tables at the peak \([0-9]*\) bytes.*/\1/p' "$1" 2>/dev/null | head -n 1)
	echo "${n:-0}"
}

fe_run() {
	local name=$1 f=$2 pfx=$WORK/fe-$1
	case $name in
	bare) time_run "$pfx" "$BARE" "$f" ;;
	pd) time_run "$pfx" "$PCAPDOC" -q --stats $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	pd1) time_run "$pfx" "$PCAPDOC" -q --stats --threads 1 $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	pdnondpi) time_run "$pfx" "$PCAPDOC" -q --threads 1 --no-ndpi $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	pdnodet) time_run "$pfx" "$PCAPDOC" -q --threads 1 --no-detectors $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	pdfloor) time_run "$pfx" "$PCAPDOC" -q --threads 1 --no-ndpi --no-detectors $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	det-*) time_run "$pfx" "$PCAPDOC" -q --threads 1 --no-ndpi --detectors "${name#det-}" $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	pd2) time_run "$pfx" "$PCAPDOC" -q --threads 2 $PCAPDOC_ARGS --format json -o "$pfx.json" "$f" ;;
	tcptrace)
		local lim=()
		command -v prlimit >/dev/null && lim=(prlimit --as=17179869184)
		TR_OUT=/dev/null time_run "$pfx" "${lim[@]}" timeout 1800 "$TCPTRACE" -n -l "$f"
		;;
	esac
	local rc=$?
	case $name in pd*) [ $rc -eq 1 ] && rc=0 ;; esac # 1: findings at --fail-on
	return $rc
}

if [ "$FRONTEND" != 0 ]; then
	FE_T0=$(date +%s)
	FEROWS=$WORK/fe-rows # tool slice seconds packets bytes rss_kb empty_rss_kb live live_tcp evicted cpu_s serial_s accounted empty_accounted
	: >"$FEROWS"
	FE_TOOLS="bare pd pd1 pd2"
	# PD_BENCH_FLOOR=1: what the parts cost, on one thread (nDPI off, the
	# detectors off, both off); PD_BENCH_FE_DETECTORS="loss window ...":
	# each of these detectors alone (nDPI off), against the floor
	[ "$FLOOR" = 1 ] && FE_TOOLS="$FE_TOOLS pdnondpi pdnodet pdfloor"
	for d in ${PD_BENCH_FE_DETECTORS:-}; do FE_TOOLS="$FE_TOOLS det-$d"; done
	[ -n "$TCPTRACE" ] && [ "$FE_TCPTRACE" -gt 0 ] && FE_TOOLS="$FE_TOOLS tcptrace"
	[ -z "$TCPTRACE" ] && echo "run_bench: tcptrace is not installed (Debian: apt-get install tcptrace); its rows are left out"
	# what each tool takes before any flow: a pcap file header, no packet
	empty=$WORK/empty.pcap
	printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$empty"
	declare -A EMPTY_M EMPTY_A
	for t in $FE_TOOLS; do
		if fe_run "$t" "$empty"; then
			EMPTY_M[$t]=$RSS_KB
			EMPTY_A[$t]=$(stats_accounted "$WORK/fe-$t.err")
		else
			echo "run_bench: $t failed on an empty capture: $(head -c 500 "$WORK/fe-$t.err")" >&2
			EMPTY_M[$t]=0
		fi
	done
	CHECK=$(dirname "$0")/live_conns.py
	echo "front-end slices: $FE_SLICES (NAME:LIVE:MB); bare_loop, pcapdoc (default, --threads 1, --threads 2)" \
		"and tcptrace take turns, best of $FE_REPEAT rounds (tcptrace: $FE_TCPTRACE)"
	echo
	for spec in $FE_SLICES; do
		IFS=: read -r name live mb <<<"$spec"
		cap=$WORK/$name.pcap
		t0=$(date +%s)
		if ! "$GEN" --frontend "$live" "$cap" "$mb" 2>"$WORK/gen-$name.log"; then
			echo "run_bench: gen_capture --frontend $live $mb failed:" >&2
			cat "$WORK/gen-$name.log" >&2
			exit 1
		fi
		t1=$(date +%s)
		echo "$name: gen_capture --frontend $live FILE $mb ($((t1 - t0)) s)"
		cat "$WORK/gen-$name.log"
		if command -v python3 >/dev/null && [ -f "$CHECK" ]; then
			echo "  independent count (bench/live_conns.py):"
			python3 "$CHECK" "$cap" | sed -n '2,$s/^/    /p'
		fi
		bytes=$(stat -c %s "$cap")
		warm "$cap"
		BEST_S=()
		BEST_M=()
		BEST_C=()
		SERIAL=""
		declare -A FE_OK=()
		for t in $FE_TOOLS; do FE_OK[$t]=1; done
		for ((round = 0; round < FE_REPEAT; round++)); do
			for t in $FE_TOOLS; do
				[ "${FE_OK[$t]}" = 1 ] || continue
				[ "$t" = tcptrace ] && [ "$round" -ge "$FE_TCPTRACE" ] && continue
				if fe_run "$t" "$cap"; then
					keep_best "$t"
					if [ "$t" = pd ]; then
						x=$(stats_serial "$WORK/fe-pd.err")
						if [ -n "$x" ] && { [ -z "$SERIAL" ] || awk -v a="$x" -v b="$SERIAL" 'BEGIN{exit !(a<b)}'; }; then
							SERIAL=$x
						fi
					fi
				else
					echo "run_bench: $t failed on $name: $(head -c 1000 "$WORK/fe-$t.err")" >&2
					FE_OK[$t]=0
					[ "$t" = bare ] && exit 1
					[ "$t" = tcptrace ] || FAILED=1
				fi
			done
		done
		echo "  bare_loop: $(cat "$WORK/fe-bare.out")"
		[ -f "$WORK/fe-pd1.err" ] && sed -n 's/^pcapdoc: stats: /  pcapdoc --threads 1: /p' "$WORK/fe-pd1.err"
		packets=$(awk '{print $2}' "$WORK/fe-bare.out")
		lv=$(sed -n 's/.* live_peak \([0-9]*\).*/\1/p' "$WORK/fe-bare.out")
		lvt=$(sed -n 's/.* live_peak_tcp \([0-9]*\).*/\1/p' "$WORK/fe-bare.out")
		for t in $FE_TOOLS; do
			[ -n "${BEST_S[$t]:-}" ] || continue
			ev=-
			if [ -f "$WORK/fe-$t.json" ]; then
				ev=$(grep -o '"evicted":[[:space:]]*[0-9]*' "$WORK/fe-$t.json" | head -n 1 | grep -o '[0-9]*$')
				[ -n "$ev" ] || ev="?"
				rm -f "$WORK/fe-$t.json"
			fi
			acct=0
			[ "$t" = pd1 ] && acct=$(stats_accounted "$WORK/fe-pd1.err")
			ser=-
			[ "$t" = pd ] && ser=${SERIAL:--}
			echo "$t $name ${BEST_S[$t]} $packets $bytes ${BEST_M[$t]} ${EMPTY_M[$t]} ${lv:-0} ${lvt:-0} $ev ${BEST_C[$t]:-0} $ser $acct ${EMPTY_A[$t]:-0}" >>"$FEROWS"
		done
		rm -f "$cap"
		# tshark keeps every frame's state: it and pcapdoc on a smaller
		# slice of the same front end (its first FE_TSHARK_MB MB of traffic)
		if [ -n "$TSHARK" ] && [ "$FE_TSHARK_MB" -gt 0 ]; then
			small=$WORK/$name-small.pcap
			if "$GEN" --frontend "$live" "$small" "$FE_TSHARK_MB" 2>/dev/null; then
				warm "$small"
				sp=$(python3 "$CHECK" "$small" 2>/dev/null | sed -n 's/^packets \([0-9]*\).*/\1/p')
				BEST_S=()
				BEST_M=()
				BEST_C=()
				for ((round = 0; round < FE_REPEAT; round++)); do
					fe_run pd "$small" && keep_best pd
				done
				if time_run "$WORK/fe-ts" "$TSHARK" -n -q -z expert -r "$small"; then
					keep_best tshark
				fi
				sb=$(stat -c %s "$small")
				for t in pd tshark; do
					[ -n "${BEST_S[$t]:-}" ] || continue
					echo "$t $name-${FE_TSHARK_MB}m ${BEST_S[$t]} ${sp:-0} $sb ${BEST_M[$t]} ${EMPTY_M[$t]:-0} 0 0 - ${BEST_C[$t]} - 0 0" >>"$FEROWS"
				done
				rm -f "$small" "$WORK/fe-pd.json"
			fi
		fi
		echo "  $name: $(($(date +%s) - t0)) s in all"
		echo
	done

	# The table. vs bare = packets/s over the bare loop's; CPU = user +
	# system over all threads (the least of the rounds); bytes per live TCP
	# connection = (peak RSS - RSS on an empty capture) / the bare loop's
	# peak of TCP connections alive at once (until FIN both ways or RST or
	# 300 s idle).
	awk -v csv="${CSV:+${CSV%.csv}-frontend.csv}" -v strict="$STRICT" "$VERDICT_AWK"'
	BEGIN {
		label["bare"] = "bare_loop"; label["pd"] = "pcapdoc"; label["pd1"] = "pcapdoc-1t"
		label["pd2"] = "pcapdoc-2t"; label["tcptrace"] = "tcptrace"
		label["pdnondpi"] = "pd1-nondpi"; label["pdnodet"] = "pd1-nodet"; label["pdfloor"] = "pd1-floor"
		label["tshark"] = "tshark"
	}
	{
		tool[NR] = $1; sl[NR] = $2; s[NR] = $3; p[NR] = $4; b[NR] = $5; rss[NR] = $6; er[NR] = $7
		lv[NR] = $8; lvt[NR] = $9; ev[NR] = $10; cpu[NR] = $11; ser[NR] = $12; acct[NR] = $13; eacct[NR] = $14
		if ($1 == "bare") bare[$2] = ($3 > 0 ? $4 / $3 : 0)
		n = NR
	}
	END {
		fmt = "%-11s %-7s %9s %8s %8s %7s %8s %9s %9s %8s %10s %8s\n"
		printf fmt, "tool", "slice", "packets", "wall s", "CPU s", "CPU us", "vs bare", "peak RSS", "empty RSS", "live TCP", "bytes per", "evicted"
		printf fmt, "", "", "", "", "", "/packet", "(pkt/s)", "MiB", "MiB", "conns", "live conn", "flows"
		if (csv != "") print "tool,slice,packets,bytes,seconds,cpu_seconds,cpu_us_per_packet,packets_per_s,ratio_vs_bare,peak_rss_kib,empty_rss_kib,live_flows,live_tcp,bytes_per_live_tcp,evicted" > csv
		for (i = 1; i <= n; i++) {
			secs = s[i] > 0 ? s[i] : 0.001
			pps = p[i] / secs
			ratio = bare[sl[i]] > 0 ? pps / bare[sl[i]] : 0
			bpl = lvt[i] > 0 ? (rss[i] - er[i]) * 1024 / lvt[i] : 0
			upp = p[i] > 0 ? cpu[i] * 1e6 / p[i] : 0
			if (!(tool[i] in label)) label[tool[i]] = tool[i]
			printf "%-11s %-7s %9d %8.3f %8.2f %7.2f %8.3f %9.1f %9.1f %8d %10.0f %8s\n", label[tool[i]], sl[i], p[i], s[i], cpu[i], upp, ratio, rss[i] / 1024, er[i] / 1024, lvt[i], bpl, ev[i]
			if (csv != "") printf "%s,%s,%d,%d,%.3f,%.2f,%.3f,%.0f,%.3f,%d,%d,%d,%d,%.0f,%s\n", label[tool[i]], sl[i], p[i], b[i], s[i], cpu[i], upp, pps, ratio, rss[i], er[i], lv[i], lvt[i], bpl, ev[i] >> csv
			key = tool[i] SUBSEP sl[i]
			wall[key] = secs; rate[key] = pps; per[key] = bpl; peak[key] = rss[i] / 1024; us[key] = upp
			grow[key] = (rss[i] - er[i]) * 1024; acc[key] = acct[i] - eacct[i]; serial[key] = ser[i]
			if (!(sl[i] in seen)) { seen[sl[i]] = 1; order[++nsl] = sl[i] }
		}
		# issue 37: per packet and per connection, every detector and nDPI on
		print "goals:"
		for (k = 1; k <= nsl; k++) {
			m = order[k]
			if (("tshark" SUBSEP m) in rate) {
				if (("pd" SUBSEP m) in rate)
					verdict(rate["pd", m] > rate["tshark", m], sprintf("%s: %.1fx tshark -q -z expert (goal > 1x)", m, rate["pd", m] / rate["tshark", m]))
				continue
			}
			if (("pd" SUBSEP m) in us)
				verdict(us["pd", m] <= 1.0, sprintf("%s: %.2f us of CPU per packet over all threads (goal <= 1.00)", m, us["pd", m]))
			if (("pd1" SUBSEP m) in us && ("pdfloor" SUBSEP m) in us && ("pdnodet" SUBSEP m) in us && ("pdnondpi" SUBSEP m) in us)
				printf "       (one thread: all %.2f us; neither nDPI nor detectors %.2f, nDPI alone adds %.2f, the detectors and packing %.2f)\n", us["pd1", m], us["pdfloor", m], us["pdnodet", m] - us["pdfloor", m], us["pdnondpi", m] - us["pdfloor", m]
			if (("pd" SUBSEP m) in per)
				verdict(per["pd", m] <= 2048, sprintf("%s: %.0f bytes of RSS per live TCP connection over the empty capture (goal <= 2048)", m, per["pd", m]))
			if (("pd1" SUBSEP m) in acc && grow["pd1", m] > 0 && acc["pd1", m] > 0)
				verdict(acc["pd1", m] >= 0.9 * grow["pd1", m], sprintf("%s: --stats accounts %.0f %% of the RSS growth at one thread (%.1f of %.1f MiB; goal >= 90 %%)", m, 100 * acc["pd1", m] / grow["pd1", m], acc["pd1", m] / 1048576, grow["pd1", m] / 1048576))
			if (("pd" SUBSEP m) in rate && ("bare" SUBSEP m) in rate) {
				verdict(rate["pd", m] >= 0.33 * rate["bare", m], sprintf("%s: pcapdoc at %.2f of the bare loop (goal >= 0.33)", m, rate["pd", m] / rate["bare", m]))
				if (("pdfloor" SUBSEP m) in rate && ("pdnodet" SUBSEP m) in rate)
					printf "       (one thread: neither nDPI nor detectors %.2f of the bare loop, nDPI without detectors %.2f)\n", rate["pdfloor", m] / rate["bare", m], rate["pdnodet", m] / rate["bare", m]
			}
			if (("pd" SUBSEP m) in serial && serial["pd", m] != "-" && ("bare" SUBSEP m) in wall)
				verdict(serial["pd", m] <= 1.5 * wall["bare", m], sprintf("%s: the serial part (busier of reading and collecting) %.2f s, %.2fx the bare loop (goal <= 1.5x): the bound on cores enough", m, serial["pd", m], serial["pd", m] / wall["bare", m]))
			if (("pd" SUBSEP m) in rate && ("tcptrace" SUBSEP m) in rate)
				verdict(rate["pd", m] > rate["tcptrace", m], sprintf("%s: %.1fx tcptrace (goal > 1x)", m, rate["pd", m] / rate["tcptrace", m]))
			if (("pd1" SUBSEP m) in wall && ("pd2" SUBSEP m) in wall)
				printf "       (%.2fx from one worker thread to two, on two cores with a reading and a collecting thread beside them)\n", wall["pd1", m] / wall["pd2", m]
		}
		exit strict && miss > 0
	}' "$FEROWS" || FAILED=1
	echo "(live TCP conns: the bare loop's peak of TCP connections alive at once, used for every tool; pcapdoc's"
	echo " own count and bytes are its --stats lines above. Front-end part: $(($(date +%s) - FE_T0)) s.)"
fi

exit $FAILED
