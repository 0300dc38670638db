#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 500
"""Wildcards at scale in the 6.12 VM (TCG): attach and exit times of kfunc:vfs_* and
kprobe:vfs_* for aotrace (aliases cloned per function, full expansion, kprobe_multi, one
kprobe per function) next to bpftrace 0.17, all in one VM run."""
from benchlib import table, vm_rows

title = '## Wildcards at scale (6.12 VM, TCG)\n'
rows, _ = vm_rows(title, '6.12', 2, 'wildcards_guest.sh', 490)
print('## Wildcards at scale (6.12 VM, TCG)\n')
print('`bench/lib/wildcards_guest.sh` in `tests/vm/run --kernel 6.12 --cpus 2` (TCG), one run per')
print('case; each program counts `@[probe]` over the matches, exits from an interval after 2 s.')
print('"Start to BEGIN" is compile + load + attach; "exit() to prompt" runs from the exit() in the')
print('program to the shell getting control back; "left" is BPF programs still loaded 1 s later')
print('(aotrace hands slow releases to a background process); each case starts once the')
print('previous one\'s programs are all gone.\n')
out = []
for r in rows:
    label, start, ex, total, left, keys = (r + [''] * 6)[:6]
    out.append([label, start + ' s', ex + ' s', total + ' s', left, keys])
print(table(['Case', 'Start to BEGIN', 'exit() to prompt', 'Total', 'Left 1 s later',
             'Keys printed'], out))
print()
