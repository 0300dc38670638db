#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs in the 7.2 VM (bench/rows/6-kfunc-multi-vm.py): kfunc:vfs_*, kfunc:acpi_* and kfunc:* with one
# tracing multi link, with a clone per function (AOTRACE_MULTI_LINKS=0), and with bpftrace
# 0.27.1 (tests/peers), one case after the other. Each case prints
# "ROW|label|start to BEGIN (s)|tracing_multi links|tracing links|exit() to prompt (s)|
#  exit() to released (s)|keys printed|events counted", or "ROW|label|did not run: why".
# KFUNC_BENCH_CASES, a regular expression, runs only the cases whose label matches.
# Every 2 minutes of a case it prints a PROGRESS line (its last output), so that a run the VM's
# own time limit stops still says how far it got.
# Run from the source folder (the guest sees the host's checkout).
#
# The guest has one vCPU, and with kfunc:* attached every kernel function runs a BPF program:
# whatever the bench runs beside a case slows the case down and is slowed down by it. So
# while a case loads and attaches nothing else runs but a one-second check of its output that
# forks nothing (bash builtins; a tail every 2 minutes for PROGRESS); the file-reading loop that
# makes the events starts once BEGIN has printed and stops when the case returns; the links are
# counted once, right after BEGIN.
# (The bench before this polled `bpftool -j link show | python3` every 0.5 s and ran the loop
# from the start: kfunc:* with one multi link did not reach its exit() in 300 s, against 152 s
# from start to released by hand.)
# shellcheck source=bench/lib/guest_lib.sh
. "$(dirname "$0")/guest_lib.sh"
A=$AOTRACE_BUILD/aotrace
P27=$PWD/tests/peers/bpftrace-0.27
LIMIT=${KFUNC_BENCH_LIMIT:-600}
CASES=${KFUNC_BENCH_CASES:-.}
cd /tmp || exit 1
# nap SECONDS: a sleep without a fork (a read that times out on a pipe nobody writes to)
exec 9<> <(:)
nap() { read -r -t "$1" -u 9; }
# now: the uptime in seconds, without a fork
now() { local u _; read -r u _ </proc/uptime; echo "$u"; }
W() { while :; do cat /etc/hostname >/dev/null; nap 0.02; done; }
tprogs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*: tracing'; }
# "tracing_multi tracing": the links of each type (bpftool 7.5 names type 15 "type 15")
links() {
	bpftool link show 2>/dev/null | awk '/^[0-9]+: / {
		if ($2 == "tracing_multi" || ($2 == "type" && $3 == 15)) m++
		else if ($2 == "tracing") t++
	} END { print m + 0, t + 0 }'
}
# seen WORD: whether o.txt has a line starting with WORD (read with builtins only)
seen() {
	local l
	[ -e o.txt ] || return 1
	while read -r l; do [[ $l == "$1"* ]] && return 0; done <o.txt
	return 1
}
# the first run of each tool reads its files over 9p and the kernel's BTF: not measured
"$A" -e 'BEGIN { exit(); }' >/dev/null 2>&1
"$P27" -e 'BEGIN { exit(); }' >/dev/null 2>&1
echo "FUNCS|$("$A" -l 'kfunc:*' | wc -l)|$("$A" -l 'kfunc:vfs_*' | wc -l)|$("$A" -l 'kfunc:acpi_*' | wc -l)"
NCASE=0
row() {
	local label=$1 m=0 t=0 lt="" wp="" rc why stage="" left pm pt gone u _ said=0
	shift
	[[ $label =~ $CASES ]] || return 0
	rm -f end.txt o.txt e.txt
	CASE_T0=$(now)
	(timeout -k 60 "$LIMIT" "$@" >o.txt 2>e.txt; echo "$? $(now)" >end.txt) &
	CASE_PID=$!
	while kill -0 $CASE_PID 2>/dev/null; do
		if [ -z "$wp" ] && seen begin_at; then
			W &
			wp=$!
			read -r m t < <(links)
			lt=$(now)
		fi
		# how far a case got that is about to be stopped at the limit
		read -r u _ </proc/uptime
		if [ -z "$wp" ] && [ -z "$stage" ] && ((${u%.*} - ${CASE_T0%.*} > LIMIT - 20)); then
			read -r pm pt < <(links)
			read -r u _ </proc/uptime
			stage="at $((${u%.*} - ${CASE_T0%.*})) s $(tprogs) tracing programs were loaded, $pm tracing_multi and $pt tracing links"
		fi
		# every 2 minutes, how far it got (its last line of progress): a run that the VM's
		# own limit stops still says something
		if ((${u%.*} - ${CASE_T0%.*} >= said + 120)); then
			said=$((${u%.*} - ${CASE_T0%.*}))
			echo "PROGRESS $label at $said s: $(tail -c 160 e.txt | tr '\r\n|' '  /')"
		fi
		nap 1
	done
	[ -n "$wp" ] && kill "$wp"
	wait "$CASE_PID"
	read -r rc CASE_T2 <end.txt
	# released: no tracing program loaded (at most LIMIT s more)
	while [ "$(tprogs)" -gt 0 ] && [ "$(echo "$(now) - $CASE_T2 < $LIMIT" | bc)" = 1 ]; do
		read -r u _ </proc/uptime
		if ((${u%.*} - ${CASE_T0%.*} >= said + 120)); then
			said=$((${u%.*} - ${CASE_T0%.*}))
			echo "PROGRESS $label at $said s: returned (exit $rc), $(tprogs) tracing programs still loaded"
		fi
		nap 0.5
	done
	CASE_GONE=$(now)
	left=$(tprogs)
	CASE_B=$(stamp begin_at)
	CASE_X=$(stamp exit_at)
	why=$(grep -m1 -i 'error' e.txt || tail -1 e.txt)
	[ -z "$why" ] && why=$(grep -v '_at ' o.txt | tail -1)
	# nothing of this case slows the next one down, or its row says so
	[ "$left" -gt 0 ] && why="$why; $left tracing programs still loaded $LIMIT s after it returned"
	NCASE=$((NCASE + 1))
	echo "CASE$NCASE|$label|rc $rc|t0 $CASE_T0|begin $CASE_B|links at $lt: $m $t|exit $CASE_X|returned $CASE_T2|gone $CASE_GONE|$(tail -c 300 e.txt | tr '\n' ' ')"
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		# aotrace runs BEGIN after an attach that SIGTERM stopped: not reached in time
		[ -n "$CASE_B" ] && [ "$(echo "$CASE_B - $CASE_T0 >= $LIMIT" | bc)" = 1 ] && CASE_B=""
		if [ -z "$CASE_B" ]; then
			echo "ROW|$label|did not reach BEGIN in $LIMIT s, stopped then: ${stage:+$stage; }its last message: ${why:-none}"
		elif [ -z "$CASE_X" ]; then
			echo "ROW|$label|reached BEGIN after $(echo "$CASE_B - $CASE_T0" | bc) s, no exit() in $LIMIT s"
		else
			echo "ROW|$label|reached exit() after $(echo "$CASE_X - $CASE_T0" | bc) s, did not return in $LIMIT s"
		fi
	elif [ -z "$CASE_B" ] || [ -z "$CASE_X" ]; then
		echo "ROW|$label|did not run (exit $rc): ${why:-no message}"
	else
		# links counted after the exit() may be short of what was attached
		[ "$(echo "$lt > $CASE_X" | bc)" = 1 ] && m="$m (counted after exit())" && t="$t (counted after exit())"
		gone=$(echo "$CASE_GONE - $CASE_X" | bc)
		[ "$left" -gt 0 ] && gone="over $gone s ($left still loaded)"
		echo "ROW|$label|$(echo "$CASE_B - $CASE_T0" | bc)|$m|$t|$(echo "$CASE_T2 - $CASE_X" | bc)|$gone|$(grep -c '^@\[' o.txt)|$(grep -E '^@.*: [0-9]+$' o.txt | awk '{ n += $NF } END { print n + 0 }')"
	fi
	nap 3
}
B='BEGIN { printf("begin_at %llu\n", nsecs); }'
E='interval:s:2 { printf("exit_at %llu\n", nsecs); exit(); }'
V="kfunc:vfs_* { @[probe] = count(); } $B $E"
M="kfunc:acpi_* { @[probe] = count(); } $B $E"
K="kfunc:* { @ = count(); } $B $E"
row "aotrace kfunc:vfs_* (one tracing multi link)" "$A" -e "$V"
row "aotrace kfunc:vfs_* (clones)" env AOTRACE_MULTI_LINKS=0 "$A" -e "$V"
row "bpftrace 0.27.1 kfunc:vfs_*" "$P27" -e "$V"
# about 1300 functions that run seldom in the guest: clones attach and exit in the limit
row "aotrace kfunc:acpi_* (one tracing multi link)" "$A" -e "$M"
row "aotrace kfunc:acpi_* (clones)" env AOTRACE_MULTI_LINKS=0 "$A" --max-probes 100000 -e "$M"
row "bpftrace 0.27.1 kfunc:acpi_*" env BPFTRACE_MAX_PROBES=100000 BPFTRACE_MAX_BPF_PROGS=100000 "$P27" -e "$M"
row "aotrace kfunc:* (one tracing multi link)" "$A" -e "$K"
row "aotrace kfunc:* (clones)" env AOTRACE_MULTI_LINKS=0 "$A" --max-probes 1000000 -e "$K"
row "bpftrace 0.27.1 kfunc:*" env BPFTRACE_MAX_PROBES=1000000 BPFTRACE_MAX_BPF_PROGS=1000000 "$P27" -e "$K"
exit 0
