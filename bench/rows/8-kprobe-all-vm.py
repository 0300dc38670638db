#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 720
"""kprobe:* (every function ftrace can trace) in the 6.12 VM: aotrace's one kprobe_multi link
next to bpftrace 0.17, in one VM run with 1 vCPU (with 2 vCPUs under TCG the guest kernel
panicked once while patching tens of thousands of functions)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.environ.get('AOTRACE_BUILD', os.path.join(ROOT, 'build'))
cmd = 'AOTRACE_BUILD=%s bash bench/lib/kprobe_all_guest.sh 2>&1 | sed "s/^/    /"' % build
title = '## kprobe:* (6.12 VM, TCG, 1 vCPU)\n'
try:
    p = subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'vm', 'run'), '--build', build,
                        '--kernel', '6.12', '--cpus', '1', '--timeout', '690', '--cmd', cmd],
                       capture_output=True, text=True, timeout=700)
except (OSError, subprocess.TimeoutExpired) as e:
    print('%s\nNot measured: %s' % (title, e))
    sys.exit(77)
out = p.stdout.splitlines()
rows = [l.split('ROW|', 1)[1].split('|') for l in out if 'ROW|' in l]
funcs = [l.split('FUNCS|', 1)[1].strip() for l in out if 'FUNCS|' in l]
if not rows:
    print('%s\nNot measured: the VM gave no rows.\n' % title)
    sys.stderr.write(p.stdout[-3000:] + p.stderr[-2000:])
    sys.exit(77)
print(title)
print('`bench/lib/kprobe_all_guest.sh` in `tests/vm/run --kernel 6.12 --cpus 1`: `kprobe:* { @ =')
print('count(); }`, exit from an interval after 2 s. %s functions in' % (funcs[0] if funcs else '?'))
print('available_filter_functions. "Functions in multi links" is the sum of `func_cnt` over')
print('`bpftool link show` once BEGIN has run; "released" runs from exit() until no kprobe')
print('program is loaded (aotrace leaves the link\'s release to a background process).')
print('`bpftool link show` lists no BPF link of bpftrace 0.17\'s, so its link columns say 0. Under')
print('TCG the kernel\'s text patching dominates: these are not real-hardware times.\n')
print('| Case | Start to BEGIN | Functions in multi links | Single kprobe links | '
      'exit() to prompt | exit() to released | Events counted |')
print('|---|---|---|---|---|---|---|')
for r in rows:
    if len(r) < 7:
        print('| %s | %s | | | | | |' % (r[0], ' '.join(r[1:]).strip()))
        continue
    label, start, multi, single, ex, gone, events = r[:7]
    print('| %s | %s s | %s | %s | %s s | %s s | %s |' % (label, start, multi, single, ex, gone,
                                                         events))
print()
