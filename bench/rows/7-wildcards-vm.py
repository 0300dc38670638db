#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 500
"""Wildcards at scale in the 6.12 VM (TCG): attach and exit times of kfunc:vfs_* and
kprobe:vfs_* for aotrace (aliases cloned per function, full expansion, kprobe_multi, one
kprobe per function) next to bpftrace 0.17, all in one VM run."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.environ.get('AOTRACE_BUILD', os.path.join(ROOT, 'build'))
cmd = ('AOTRACE_BUILD=%s bash bench/lib/wildcards_guest.sh 2>&1 | sed "s/^/    /"' % build)
try:
    p = subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'vm', 'run'), '--build', build,
                        '--kernel', '6.12', '--cpus', '2', '--timeout', '480', '--cmd', cmd],
                       capture_output=True, text=True, timeout=490)
except (OSError, subprocess.TimeoutExpired) as e:
    print('## Wildcards at scale (6.12 VM)\n\nNot measured: %s' % e)
    sys.exit(77)
rows = [l.split('ROW|', 1)[1].split('|') for l in p.stdout.splitlines() if 'ROW|' in l]
if not rows:
    print('## Wildcards at scale (6.12 VM)\n\nNot measured: the VM gave no rows.\n')
    sys.stderr.write(p.stdout[-2000:] + p.stderr[-2000:])
    sys.exit(77)
print('## Wildcards at scale (6.12 VM, TCG)\n')
print('`bench/lib/wildcards_guest.sh` in `tests/vm/run --kernel 6.12 --cpus 2` (TCG), one run per')
print('case; each program counts `@[probe]` over the matches, exits from an interval after 2 s.')
print('"Start to BEGIN" is compile + load + attach; "exit() to prompt" runs from the exit() in the')
print('program to the shell getting control back; "left" is BPF programs still loaded 1 s later')
print('(aotrace hands slow releases to a background process); each case starts once the')
print('previous one\'s programs are all gone.\n')
print('| Case | Start to BEGIN | exit() to prompt | Total | Left 1 s later | Keys printed |')
print('|---|---|---|---|---|---|')
for r in rows:
    label, start, ex, total, left, keys = (r + [''] * 6)[:6]
    print('| %s | %s s | %s s | %s s | %s | %s |' % (label, start, ex, total, left, keys))
print()
