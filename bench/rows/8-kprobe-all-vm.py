#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 720
"""kprobe:* (every function ftrace can trace) in the 6.12 VM: aotrace's one kprobe_multi link
next to bpftrace 0.17, in one VM run with 1 vCPU (with 2 vCPUs under TCG the guest kernel
panicked once while patching tens of thousands of functions)."""
from benchlib import table, vm_rows

title = '## kprobe:* (6.12 VM, TCG, 1 vCPU)\n'
rows, values = vm_rows(title, '6.12', 1, 'kprobe_all_guest.sh', 700)
funcs = [values['FUNCS'][0]] if 'FUNCS' in values else []
print(title)
print('`bench/lib/kprobe_all_guest.sh` in `tests/vm/run --kernel 6.12 --cpus 1`: `kprobe:* { @ =')
print('count(); }`, exit from an interval after 2 s. %s functions in' % (funcs[0] if funcs else '?'))
print('available_filter_functions. "Functions in multi links" is the sum of `func_cnt` over')
print('`bpftool link show` once BEGIN has run; "released" runs from exit() until no kprobe')
print('program is loaded (aotrace leaves the link\'s release to a background process).')
print('`bpftool link show` lists no BPF link of bpftrace 0.17\'s, so its link columns say 0. Under')
print('TCG the kernel\'s text patching dominates: these are not real-hardware times.\n')
out = []
for r in rows:
    if len(r) < 7:
        out.append([r[0], ' '.join(r[1:]).strip()] + [''] * 5)
        continue
    label, start, multi, single, ex, gone, events = r[:7]
    out.append([label, start + ' s', multi, single, ex + ' s', gone + ' s', events])
print(table(['Case', 'Start to BEGIN', 'Functions in multi links', 'Single kprobe links',
             'exit() to prompt', 'exit() to released', 'Events counted'], out))
print()
