#!/bin/bash
# host_snap.sh NS DIR WHEN [ss-only]: the snapshots `pcapdoc capture` takes, taken inside network
# namespace NS into DIR/<kind>.<WHEN>, each headed by "# time EPOCH" and "# cmd ...": sysctl -a,
# nstat -asz, ss -tmina, conntrack -S, conntrack -C, ip addr, ip -s link, tc -s qdisc,
# /proc/net/softnet_stat, uname -r, hostname. All read-only.
# With a fourth argument only ss (the snapshots taken while the capture runs).
set -u
ns=$1 dir=$2 when=$3
mkdir -p "$dir"
snap() {
  local name=$1; shift
  { printf '# time %s\n# cmd %s\n' "$(date +%s.%3N)" "$*"; ip netns exec "$ns" "$@" 2>/dev/null; } > "$dir/$name.$when"
}
snap ss ss -tmina
[ $# -ge 4 ] && exit 0
snap sysctl sysctl -a
snap nstat nstat -asz
snap conntrack-S conntrack -S
snap conntrack-C conntrack -C
snap ipaddr ip addr
snap iplink ip -s link
snap qdisc tc -s qdisc
snap softnet cat /proc/net/softnet_stat
snap uname uname -r
snap hostname hostname
exit 0
