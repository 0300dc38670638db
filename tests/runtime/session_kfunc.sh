#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kfunc tests of session.test: kfunc:vfs_read + kretfunc:vfs_read (one fsession program where
# the kernel has them, Linux 7.2) run with sessions, with --no-session and with
# AOTRACE_SESSION_LINKS=0; prints each run's tracing links as bpftool names their attach types
# ("session links: fsession"), then per function the calls, the bytes asked for (an argument,
# read at the entry), the returns and their sum (retval, read at the return) of one cat, once:
# the diffs fail the test where the runs differ.
set -eo pipefail
scale=$(printf "%.0f" "${AOTRACE_TIMEOUT_SCALE:-1}")
links() {
	label=$1; shift; rm -f out
	"$AOTRACE" "$@" -e 'BEGIN { printf("ready\n"); }
		kfunc:vfs_read { @e = count(); } kretfunc:vfs_read { @r = count(); }' > out 2>&1 & a=$!
	for i in $(seq $((300 * scale))); do grep -q ready out && break; sleep 0.2; done
	ids=$(cat /proc/$a/fdinfo/* 2> /dev/null |
		awk '/^link_type:/ { t = $2 } /^link_id:/ { if (t == "tracing") print $2 }' || true)
	# The attach type of each, as bpftool names it (7.5: trace_fentry, or 58 for fsession).
	types=$("$BPFTOOL" link show | awk -v ids=" $(echo $ids) " '
		/^[0-9]+:/ { id = $1; sub(":", "", id) }
		/attach_type/ { for (i = 1; i < NF; i++) if ($i == "attach_type" && index(ids, " " id " ")) print $(i + 1) }' |
		sort | tr '\n' ' ')
	kill -INT $a; wait $a
	echo "$label links: ${types% }"
}
links session
links --no-session --no-session
AOTRACE_SESSION_LINKS=0 links env
cat > s.bt <<'BT'
kfunc:vfs_read, kfunc:vfs_write /pid == cpid/ { @calls[probe] = count(); @asked[probe] = sum(args.count); }
kretfunc:vfs_read, kretfunc:vfs_write /pid == cpid/ { @rets[probe] = count(); @retval[probe] = sum(retval); }
BT
run() {
	"$AOTRACE" "$@" -q -c "cat $TESTDIR/session_prog.c" s.bt | grep '^@' | sort
}
run > ours
run --no-session > two
AOTRACE_SESSION_LINKS=0 run > env
diff ours two && diff ours env
cat ours
for f in calls rets; do echo "$f: $(grep -Ec "^@$f\\[f(entry|exit):vmlinux:vfs_(read|write)\\]: [1-9]" ours)"; done
for f in read write; do
	echo "vfs_$f balanced: $(grep -E "^@(calls|rets)\\[f(entry|exit):vmlinux:vfs_$f\\]:" ours | cut -d' ' -f2 | uniq | wc -l)"
done
echo "written: $(grep -E '^@retval\[fexit:vmlinux:vfs_write\]:' ours | cut -d' ' -f2) of $(stat -c %s "$TESTDIR/session_prog.c")"
