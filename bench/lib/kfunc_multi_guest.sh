#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the 7.2 VM (bench/rows/6-kfunc-multi-vm.py): kfunc:vfs_* and kfunc:* with one
# tracing multi link, with a clone per function (AOTRACE_MULTI_LINKS=0), and with bpftrace
# 0.27.1 (tests/peers), one case after the other. Each case prints
# "ROW|label|start to BEGIN (s)|tracing_multi links|tracing links|exit() to prompt (s)|
#  exit() to released (s)|keys printed|events counted", or "ROW|label|did not run: why".
# Run from the source folder (the guest sees the host's checkout).
# shellcheck source=bench/lib/guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
A=$AOTRACE_BUILD/aotrace
P27=$PWD/tests/peers/bpftrace-0.27
LIMIT=${KFUNC_BENCH_LIMIT:-600}
cd /tmp || exit 1
W() { while :; do cat /etc/hostname >/dev/null; sleep 0.02; done; }
W &
WP=$!
tprogs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*: tracing'; }
# "tracing_multi tracing": the links of each type (bpftool 7.5 names type 15 by number)
links() {
	bpftool -j link show 2>/dev/null | python3 -c 'import json, sys
try:
    l = json.load(sys.stdin)
except ValueError:
    l = []
print(sum(x.get("type") in (15, "tracing_multi") for x in l),
      sum(x.get("type") in (2, "tracing") for x in l))'
}
# the first run of each tool reads its files over 9p and the kernel's BTF: not measured
"$A" -e 'BEGIN { exit(); }' >/dev/null 2>&1
"$P27" -e 'BEGIN { exit(); }' >/dev/null 2>&1
echo "FUNCS|$("$A" -l 'kfunc:*' | wc -l)|$("$A" -l 'kfunc:vfs_*' | wc -l)"
row() {
	local label=$1
	shift
	local m=0 t=0 prev=-1 n
	case_start "$LIMIT" "$@"
	# the links once their number stops growing (bpftrace may run BEGIN before it attaches)
	while kill -0 $CASE_PID 2>/dev/null; do
		read -r m t < <(links)
		n=$((m + t))
		[ "$n" -gt 0 ] && [ "$n" = "$prev" ] && break
		prev=$n
		sleep 0.5
	done
	case_end tprogs "$LIMIT"
	if [ -z "$CASE_B" ] || [ -z "$CASE_X" ]; then
		echo "ROW|$label|did not run in $LIMIT s: $CASE_WHY"
	else
		echo "ROW|$label|$(echo "$CASE_B - $CASE_T0" | bc)|$m|$t|$(echo "$CASE_T2 - $CASE_X" | bc)|$(echo "$CASE_GONE - $CASE_X" | bc)|$(grep -c '^@\[' o.txt)|$(grep -E '^@.*: [0-9]+$' o.txt | awk '{ n += $NF } END { print n + 0 }')"
	fi
	# nothing of this case slows the next one down
	while [ "$(tprogs)" -gt 0 ]; do sleep 0.5; done
	sleep 3
}
B='BEGIN { printf("begin_at %llu\n", nsecs); }'
E='interval:s:2 { printf("exit_at %llu\n", nsecs); exit(); }'
V="kfunc:vfs_* { @[probe] = count(); } $B $E"
K="kfunc:* { @ = count(); } $B $E"
row "aotrace kfunc:vfs_* (one tracing multi link)" "$A" -e "$V"
row "aotrace kfunc:vfs_* (clones)" env AOTRACE_MULTI_LINKS=0 "$A" -e "$V"
row "bpftrace 0.27.1 kfunc:vfs_*" "$P27" -e "$V"
row "aotrace kfunc:* (one tracing multi link)" "$A" -e "$K"
row "aotrace kfunc:* (clones)" env AOTRACE_MULTI_LINKS=0 "$A" --max-probes 1000000 -e "$K"
row "bpftrace 0.27.1 kfunc:*" env BPFTRACE_MAX_PROBES=1000000 BPFTRACE_MAX_BPF_PROGS=1000000 "$P27" -e "$K"
kill $WP
