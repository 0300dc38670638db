#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM (bench/rows/8-kprobe-all-vm.py): kprobe:* counted for 2 s, by aotrace and by
# bpftrace 0.17. Each case prints
# "ROW|label|start to BEGIN (s)|functions in kprobe_multi links|single kprobe links|
#  exit() to prompt (s)|until released (s)|events counted".
A=$AOTRACE_BUILD/aotrace
# shellcheck source=bench/lib/guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
cd /tmp || exit 1
kprogs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*: kprobe'; }
echo "FUNCS|$(wc -l < /sys/kernel/tracing/available_filter_functions)"
P='kprobe:* { @ = count(); } BEGIN { printf("begin_at %llu\n", nsecs); }
interval:s:2 { printf("exit_at %llu\n", nsecs); exit(); }'
row() {
	local label=$1 limit=$2
	shift 2
	local multi single
	case_start "$limit" "$@"
	# bpftrace prints BEGIN before it attaches: look until the links are there or it ends
	multi=0 single=0
	while [ "$multi" = 0 ] && [ "$single" = 0 ] && kill -0 $CASE_PID 2> /dev/null; do
		bpftool link show > links.txt 2> /dev/null
		multi=$(grep -o 'func_cnt [0-9]*' links.txt | awk '{ n += $2 } END { print n + 0 }')
		single=$(grep -c '^[0-9]*: perf_event' links.txt)
	done
	case_end kprogs 120
	if [ -z "$CASE_B" ] || [ -z "$CASE_X" ]; then
		echo "ROW|$label|did not run: $CASE_WHY"
		return
	fi
	echo "ROW|$label|$(echo "$CASE_B - $CASE_T0" | bc)|$multi|$single|$(echo "$CASE_T2 - $CASE_X" | bc)|$(echo "$CASE_GONE - $CASE_X" | bc)|$(grep -o '^@: [0-9]*' o.txt | cut -d' ' -f2)"
	sleep 5
}
row "aotrace kprobe:*" 300 "$A" -e "$P"
row "bpftrace 0.17 kprobe:*" 300 bpftrace -e "$P"
