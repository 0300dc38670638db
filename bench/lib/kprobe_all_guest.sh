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
	local t2 multi single b x gone
	case_start "$limit" "$@"
	# bpftrace prints BEGIN before it attaches: look until the links are there or it ends
	multi=0 single=0
	while [ "$multi" = 0 ] && [ "$single" = 0 ] && kill -0 $CASE_PID 2> /dev/null; do
		bpftool link show > links.txt 2> /dev/null
		multi=$(grep -o 'func_cnt [0-9]*' links.txt | awk '{ n += $2 } END { print n + 0 }')
		single=$(grep -c '^[0-9]*: perf_event' links.txt)
	done
	wait $CASE_PID
	t2=$(cat end.txt)
	while [ "$(kprogs)" -gt 0 ] && [ "$(echo "$(up) - $t2 < 120" | bc)" = 1 ]; do sleep 0.2; done
	gone=$(up)
	b=$(stamp begin_at)
	x=$(stamp exit_at)
	if [ -z "$b" ] || [ -z "$x" ]; then
		echo "ROW|$label|did not run: $(grep -m1 -i 'error' e.txt || tail -1 e.txt)"
		return
	fi
	echo "ROW|$label|$(echo "$b - $CASE_T0" | bc)|$multi|$single|$(echo "$t2 - $x" | bc)|$(echo "$gone - $x" | bc)|$(grep -o '^@: [0-9]*' o.txt | cut -d' ' -f2)"
	sleep 5
}
row "aotrace kprobe:*" 300 "$A" -e "$P"
row "bpftrace 0.17 kprobe:*" 300 bpftrace -e "$P"
