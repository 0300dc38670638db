# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench's scripts that run in a VM guest (bench/lib/*_guest.sh): one case is a
# program that prints "begin_at NSECS" in BEGIN and "exit_at NSECS" before its exit().

up() { cut -d' ' -f1 /proc/uptime; }

# case_start LIMIT CMD...: runs CMD in the background (at most LIMIT seconds), its stdout in
# o.txt and stderr in e.txt, and the uptime it returned at in end.txt, stamped as it returns
# whatever the caller is doing then. Sets CASE_T0 (the start) and CASE_PID, and returns once
# the program printed begin_at or ended.
case_start() {
	local limit=$1
	shift
	CASE_T0=$(up)
	rm -f end.txt o.txt e.txt
	(timeout "$limit" "$@" >o.txt 2>e.txt; up >end.txt) &
	CASE_PID=$!
	while ! grep -q begin_at o.txt && kill -0 $CASE_PID 2>/dev/null; do sleep 0.1; done
}

# stamp begin_at|exit_at: when the program printed it, in seconds of uptime ("" if it did not)
stamp() { grep -o "$1 [0-9]*" o.txt | awk '{ printf "%.2f", $2 / 1e9 }'; }

# case_end PROGS WITHIN: waits for the case's program to return, then until the command PROGS
# counts none of its BPF programs loaded (at most WITHIN seconds). Sets CASE_T2 (it returned),
# CASE_GONE (its programs were gone), CASE_B and CASE_X (its begin_at and exit_at stamps, ""
# if it did not print them) and CASE_WHY (its first error, or its last line).
case_end() {
	wait "$CASE_PID"
	CASE_T2=$(cat end.txt)
	while [ "$($1)" -gt 0 ] && [ "$(echo "$(up) - $CASE_T2 < $2" | bc)" = 1 ]; do sleep 0.2; done
	CASE_GONE=$(up)
	CASE_B=$(stamp begin_at)
	CASE_X=$(stamp exit_at)
	CASE_WHY=$(grep -m1 -i 'error' e.txt || tail -1 e.txt)
}
