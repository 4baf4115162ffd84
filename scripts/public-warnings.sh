#!/bin/bash
# Every warning and error pcapdoc raises on the public traces, one per line:
#   file <TAB> finding id <TAB> severity <TAB> first setting <TAB> detail (300 characters)
# The list docs/precision.md judges. Usage:
#   scripts/public-warnings.sh [PCAPDOC] [TRACES]
# PCAPDOC defaults to build/pcapdoc, TRACES to $PD_SHARED/traces/public
# (PD_SHARED defaults to ../shared). Each file gets at most 120 s.
set -euo pipefail
B=${1:-build/pcapdoc}
T=${2:-${PD_SHARED:-../shared}/traces/public}
[ -x "$B" ] || { echo "no pcapdoc at $B" >&2; exit 2; }
[ -d "$T" ] || { echo "no public traces at $T" >&2; exit 2; }
find "$T" -type f \( -name '*.pcap*' -o -name '*.cap' \) | LC_ALL=C sort | while read -r f; do
	timeout 120 "$B" -q --format json "$f" 2>/dev/null | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for x in d["findings"]:
    if x["severity"] in ("warning", "error"):
        s = x.get("settings") or []
        print(sys.argv[1], x["id"], x["severity"], s[0]["name"] if s else "-",
              (x.get("detail") or "")[:300].replace("\n", " "), sep="\t")
' "${f#"$T"/}" || true
done
