#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kprobe tests of session.test: kprobe:vfs_rea[d] and kretprobe:vfs_rea[d] (a wildcard: one
# multi program each, or one session program) run with sessions and with --no-session while
# cat reads; prints the multi links each run made ("session links: N"), and the output once
# (the diff fails the test where they differ). bpftrace 0.27.1 is not compared here: the
# host that has it has no kprobes.
set -eo pipefail
scale=$(printf "%.0f" "${AOTRACE_TIMEOUT_SCALE:-1}")
cat > k.bt <<'BT'
BEGIN { printf("ready\n"); }
kprobe:vfs_rea[d] /comm == "cat"/ { @e[probe] = 1; @depth[tid]++; }
kretprobe:vfs_rea[d] /comm == "cat" && @depth[tid]/ { @r[probe] = 1; @ok[retval >= 0] = 1; @depth[tid]--; }
END { clear(@depth); }
BT
run() {
	rm -f out
	"$AOTRACE" "$@" k.bt > out 2>&1 & a=$!
	for i in $(seq $((300 * scale))); do grep -q ready out && break; sleep 0.2; done
	fdinfo=$(cat /proc/$a/fdinfo/* 2> /dev/null || true)
	sleep $((2 * scale))
	kill -INT $a
	wait $a
	grep -v -e ready -e Attached out | grep . | sort > "out.${1:-session}"
	echo "${1:-session} links: $(echo "$fdinfo" | grep -Ec '^link_type:\s*k(ret)?probe_multi$' || true)"
}
run
run --no-session
diff out.session out.--no-session
cat out.session
