#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the VM (bench/rows/7-wildcards-vm.py): each case prints
# "ROW|label|start to BEGIN (s)|exit() to prompt (s)|total (s)|probes left 1 s later".
A=$AOTRACE_BUILD/aotrace
cd /tmp
W() { while :; do cat /etc/hostname >/dev/null; sleep 0.02; done; }
W & WP=$!
up() { cut -d' ' -f1 /proc/uptime; }
progs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*: tracing\|^[0-9]*: kprobe'; }
row() {
	local label=$1; shift
	local t0=$(up)
	"$@" > /tmp/o.txt 2>/tmp/e.txt
	local t2=$(up)
	local b=$(grep -o 'begin_at [0-9]*' /tmp/o.txt | awk '{printf "%.2f", $2/1e9}')
	local x=$(grep -o 'exit_at [0-9]*' /tmp/o.txt | awk '{printf "%.2f", $2/1e9}')
	sleep 1
	local left=$(progs)
	echo "ROW|$label|$(echo "$b - $t0" | bc)|$(echo "$t2 - $x" | bc)|$(echo "$t2 - $t0" | bc)|$left|$(grep -c '^@\[' /tmp/o.txt)"
	# what is still being released (in the background) is gone before the next case starts,
	# or its kernel work would slow that case down
	local n=0
	while [ "$(progs)" -gt 0 ] && [ $n -lt 600 ]; do sleep 0.2; n=$((n + 1)); done
	sleep 2
}
B='BEGIN { printf("begin_at %llu\n", nsecs); }'
K="kfunc:vfs_* { @[probe] = count(); } $B interval:s:2 { printf(\"exit_at %llu\n\", nsecs); exit(); }"
P="kprobe:vfs_* { @[probe] = count(); } $B interval:s:2 { printf(\"exit_at %llu\n\", nsecs); exit(); }"
row "aotrace kfunc:vfs_* (alias, clones)" $A -e "$K"
row "aotrace kfunc:vfs_* --expand=full" $A --expand=full -e "$K"
row "bpftrace 0.17 kfunc:vfs_*" bpftrace -e "$K"
row "aotrace kprobe:vfs_* (one kprobe_multi link)" $A -e "$P"
row "aotrace kprobe:vfs_* --no-multi" $A --no-multi -e "$P"
row "bpftrace 0.17 kprobe:vfs_*" bpftrace -e "$P"
kill $WP
