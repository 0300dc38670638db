#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compiles every tool script of a bpftrace release with aotrace --emit-elf, and with that
# bpftrace (0.17: --emit-elf, a dry run there; later: --dry-run, as their --emit-elf runs the
# tool), and prints:
#
#     tools SET: aotrace N of M, bpftrace P of M
#     fail SET SCRIPT: aotrace's first error          (each script aotrace does not compile)
#     regression SET SCRIPT                           (... that the peer compiles, not known)
#     fixed SET SCRIPT                                (a known failure that compiles now)
#
#     tools_compile.sh SET BPFTRACE DIR KNOWN
#
# SET names the release (0.17, 0.23, 0.27); BPFTRACE runs it (the host's, or a peer wrapper that
# sees /usr/sbin of its chroot); DIR holds its scripts as this host sees them. KNOWN lists
# "SET SCRIPT reason" lines: failures waiting for work elsewhere (the stdlib, the config
# block), so that this test fails only on a script that newly stops compiling.
set -u
set_name=$1 peer=$2 dir=$3 known=$4
aot=${AOTRACE:?}
n=0 ours=0 theirs=0 left=0
# Under emulation (the VM matrix), only the scripts with kernel function probes, whose compile
# depends on what the kernel can trace: the host's run checks the others, and each script costs
# both tools seconds under TCG.
emulated=0
awk -v s="${AOTRACE_TIMEOUT_SCALE:-1}" 'BEGIN { exit !(s > 1) }' && emulated=1
for f in "$dir"/*.bt; do
	s=$(basename "$f")
	if [ $emulated = 1 ] && ! grep -qE '\b(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit):' "$f"; then
		left=$((left + 1))
		continue
	fi
	n=$((n + 1))
	# The peer reads the script at its own /usr/sbin (a chroot's, for 0.23 and 0.27).
	if [ "$set_name" = 0.17 ]; then
		check=(--emit-elf "$PWD/peer.o")
	else
		check=(--dry-run)
	fi
	if timeout 60 "$peer" "${check[@]}" "/usr/sbin/$s" > /dev/null 2>&1; then
		theirs=$((theirs + 1))
		peer_ok=1
	else
		peer_ok=0
	fi
	if timeout 120 "$aot" --missing-probes ignore --emit-elf "$PWD/ours.o" "$f" > /dev/null \
		2> err; then
		ours=$((ours + 1))
		grep -q "^$set_name $s " "$known" && echo "fixed $set_name $s"
		continue
	fi
	echo "fail $set_name $s: $(grep -m1 'error:' err | sed 's/^[^ ]* error: //')"
	if [ $peer_ok = 1 ] && ! grep -q "^$set_name $s " "$known"; then
		echo "regression $set_name $s"
	fi
done
[ $left = 0 ] || echo "left out under emulation: $left scripts without kernel function probes"
echo "tools $set_name: aotrace $ours of $n, bpftrace $theirs of $n"
