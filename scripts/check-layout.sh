#!/bin/sh
# Includes go one way only (docs/hacking.md): each folder may include its own
# files and the folders listed for it here, nothing else of ours.
set -u
cd "$(dirname "$0")/.."
status=0
allowed() {
	case $1 in
	dissect | knowledge) echo "" ;;
	capture | host) echo "dissect" ;;
	report) echo "dissect knowledge" ;;
	heuristics) echo "dissect knowledge report" ;;
	analyzer) echo "capture dissect heuristics host knowledge report" ;;
	cli) echo "analyzer host report" ;;
	esac
}
for d in dissect knowledge capture host report heuristics analyzer cli; do
	ok=" $d $(allowed "$d") "
	for f in "$d"/*.c "$d"/*.h; do
		[ -f "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([a-z]*\)\/.*/\1/p' "$f" | sort -u); do
			case $ok in
			*" $inc "*) ;;
			*)
				echo "check-layout: $f includes $inc/, which $d/ may not (docs/hacking.md)"
				status=1
				;;
			esac
		done
	done
done
[ $status -eq 0 ] && echo "check-layout: every include goes the documented way"
exit $status
