#!/bin/bash
# pcapdoc golden captures: link-type variants (see README.md).  Run as root.
# Namespaces pdh-lt-cli (client) / pdh-lt-srv (server); one dual-stack python HTTP server on
# port 80 in pdh-lt-srv; every capture holds one short HTTP/1.1 GET + response + clean close
# (client FIN first), except headers-only.pcap (100 KiB download, snaplen 96).
#   veth pdh-lt-c/pdh-lt-s : 10.77.20.1 <-> 10.77.20.2, fd77::1 <-> fd77::2
#   tap  tapc/taps         : 10.77.21.1 <-> 10.77.21.2, joined by tapswitch.py, which mirrors
#                            the frames with 802.1Q (and 802.1ad) tags into tap "tapw" (client ns)
#   tun  tunc/tuns         : 10.77.23.1 <-> 10.77.23.2, joined by tapswitch.py (raw IP)
# This kernel has no 8021q (CONFIG_VLAN_8021Q unset), no act_vlan, no bridge VLAN filtering and
# no ipip, hence the userspace tap/tun wires.

# --- common begin (identical in every pcapdoc gen.sh) ---
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
PY=/usr/bin/python3
PIDS=()
NSS=()
TMP=$(mktemp -d /tmp/pdh.XXXXXX)
cleanup() {
  set +e
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.3
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  for n in "${NSS[@]}"; do ip netns del "$n" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT
# mkns NAME: netns with lo up; IPv6 off (no RS/MLD noise) unless V6=1
mkns() {
  ip netns add "$1"; NSS+=("$1")
  ip -n "$1" link set lo up
  if [ "${V6:-0}" = 0 ]; then
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  fi
}
# noffload NS IF: no TSO/GSO/GRO, software checksums -> MTU-sized segments, valid checksums on the wire
noffload() { ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true; }
# mkveth NS1 IF1 MAC1 NS2 IF2 MAC2
mkveth() {
  ip link add "$2" address "$3" netns "$1" type veth peer name "$5" address "$6" netns "$4"
  noffload "$1" "$2"; noffload "$4" "$5"
  ip -n "$1" link set "$2" up; ip -n "$4" link set "$5" up
}
# cap_start NS IF FILE [tcpdump args/filter...]  -> CAP_PID
cap_start() {
  local ns=$1 ifc=$2 f=$3; shift 3
  local err="$TMP/tcpdump.$RANDOM.err"; : > "$err"
  ip netns exec "$ns" tcpdump -i "$ifc" -n -U --immediate-mode -Z root -w "$f" "$@" 2>"$err" &
  CAP_PID=$!; PIDS+=("$CAP_PID")
  for _ in $(seq 50); do grep -q listening "$err" && break; sleep 0.1; done
  sleep 0.2
}
cap_stop() { sleep "${2:-0.5}"; kill -INT "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
# wait_listen NS PORT
wait_listen() {
  for _ in $(seq 50); do ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0; sleep 0.1; done
  echo "server on $1:$2 did not start" >&2; return 1
}
# pair ID N: namespaces pdh-ID-cli / pdh-ID-srv joined by veth pdh-ID-c / pdh-ID-s;
# client 10.77.N.1 (mac 02:77:00:NN:00:01), server 10.77.N.2 (mac 02:77:00:NN:00:02);
# static neighbour entries, so no ARP precedes the first SYN.
pair() {
  CLI=pdh-$1-cli SRV=pdh-$1-srv CIF=pdh-$1-c SIF=pdh-$1-s CIP=10.77.$2.1 SIP=10.77.$2.2
  local h; h=$(printf %02x "$2"); CMAC=02:77:00:$h:00:01 SMAC=02:77:00:$h:00:02
  mkns "$CLI"; mkns "$SRV"
  mkveth "$CLI" "$CIF" "$CMAC" "$SRV" "$SIF" "$SMAC"
  ip -n "$CLI" addr add "$CIP/24" dev "$CIF"; ip -n "$SRV" addr add "$SIP/24" dev "$SIF"
  ip -n "$CLI" neigh replace "$SIP" lladdr "$SMAC" dev "$CIF" nud permanent
  ip -n "$SRV" neigh replace "$CIP" lladdr "$CMAC" dev "$SIF" nud permanent
}
# --- common end ---

V6=1
pair lt 20
D=$HERE
# devices created from here on get no IPv6 (no RS/MLD noise on taps/tun)
for ns in "$CLI" "$SRV"; do ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.lo.disable_ipv6=0; done
ip -n "$CLI" addr add fd77::1/64 dev "$CIF" nodad; ip -n "$SRV" addr add fd77::2/64 dev "$SIF" nodad
ip -n "$CLI" neigh replace fd77::2 lladdr "$SMAC" dev "$CIF" nud permanent
ip -n "$SRV" neigh replace fd77::1 lladdr "$CMAC" dev "$SIF" nud permanent
# tap pair + mirror tap, tun pair
ip -n "$CLI" tuntap add dev tapc mode tap; ip -n "$SRV" tuntap add dev taps mode tap
ip -n "$CLI" tuntap add dev tapw mode tap
ip -n "$CLI" link set tapc address 02:77:00:21:00:01; ip -n "$SRV" link set taps address 02:77:00:21:00:02
ip -n "$CLI" addr add 10.77.21.1/24 dev tapc; ip -n "$SRV" addr add 10.77.21.2/24 dev taps
ip -n "$CLI" neigh replace 10.77.21.2 lladdr 02:77:00:21:00:02 dev tapc nud permanent
ip -n "$SRV" neigh replace 10.77.21.1 lladdr 02:77:00:21:00:01 dev taps nud permanent
ip -n "$CLI" tuntap add dev tunc mode tun; ip -n "$SRV" tuntap add dev tuns mode tun
ip -n "$CLI" addr add 10.77.23.1 peer 10.77.23.2 dev tunc; ip -n "$SRV" addr add 10.77.23.2 peer 10.77.23.1 dev tuns
for d in tapc tapw tunc; do ip -n "$CLI" link set $d up; done
for d in taps tuns; do ip -n "$SRV" link set $d up; done

timeout 120 ip netns exec "$SRV" $PY "$D/../tools/httpd.py" --host :: --port 80 --timeout 115 >/dev/null &
PIDS+=($!)
wait_listen "$SRV" 80
get() { timeout 20 ip netns exec "$CLI" $PY "$D/../tools/client.py" get "$@" >/dev/null; }

# 1. one connection over the veth, captured 4 ways at once
cap_start "$CLI" "$CIF" "$D/eth.pcap" tcp;                                   P1=$CAP_PID
cap_start "$CLI" any "$D/sll2-any.pcap" tcp;                                 P2=$CAP_PID
cap_start "$CLI" any "$D/sll.pcap" -y LINUX_SLL tcp;                         P3=$CAP_PID
cap_start "$CLI" "$CIF" "$D/nano.pcap" --time-stamp-precision=nano tcp;      P4=$CAP_PID
get "$SIP" 80
for p in $P1 $P2 $P3 $P4; do cap_stop $p 0.3; done

# 2. IPv6 over the veth
cap_start "$CLI" "$CIF" "$D/ipv6.pcap" tcp
get fd77::2 80
cap_stop "$CAP_PID"

# 3./4. 802.1Q and 802.1ad+802.1Q, as seen on the mirror tap of the tap wire
for v in "eth-vlan 0x8100:100" "eth-qinq 0x88a8:200,0x8100:100"; do
  set -- $v
  timeout 30 $PY "$D/tapswitch.py" --mode tap --a "$CLI:tapc" --b "$SRV:taps" --mirror "$CLI:tapw" --tags "$2" --timeout 25 &
  SW=$!; PIDS+=($SW)
  sleep 0.5
  cap_start "$CLI" tapw "$D/$1.pcap"
  get 10.77.21.2 80
  cap_stop "$CAP_PID"
  kill $SW; wait $SW 2>/dev/null || true
done

# 5. raw IP on a TUN device
timeout 30 $PY "$D/tapswitch.py" --mode tun --a "$CLI:tunc" --b "$SRV:tuns" --timeout 25 &
SW=$!; PIDS+=($SW)
sleep 0.5
cap_start "$CLI" tunc "$D/raw-tun.pcap" tcp
get 10.77.23.2 80
cap_stop "$CAP_PID"
kill $SW; wait $SW 2>/dev/null || true

# 6. 100 KiB download, headers only (snaplen 96)
cap_start "$CLI" "$CIF" "$D/headers-only.pcap" -s 96 tcp
get "$SIP" 80 --path /bytes/102400
cap_stop "$CAP_PID"

# 7. derived files
editcap -F pcapng "$D/eth.pcap" "$D/capture.pcapng"
gzip -9 -n -c "$D/eth.pcap" > "$D/http.pcap.gz"
$PY "$D/bsdnull.py" null "$D/raw-tun.pcap" "$D/null.pcap"
$PY "$D/bsdnull.py" loop "$D/raw-tun.pcap" "$D/loop.pcap"
$PY "$D/bsdnull.py" null "$D/ipv6.pcap" "$D/null-ipv6.pcap" 24
mergecap -F pcapng -w "$D/mixed-linktypes.pcapng" "$D/eth.pcap" "$D/raw-tun.pcap"
# truncated.pcap: eth.pcap cut in the middle of the last packet record's data
$PY - "$D/eth.pcap" "$D/truncated.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = 24; last = None
while off + 16 <= len(d):
    incl = struct.unpack('<I', d[off + 8:off + 12])[0]
    last = (off, incl); off += 16 + incl
cut = last[0] + 16 + last[1] // 2
open(sys.argv[2], 'wb').write(d[:cut])
print('truncated.pcap: %d of %d bytes; last record at offset %d, %d of its %d data bytes kept' % (cut, len(d), last[0], last[1] // 2, last[1]))
PY
echo "done"
