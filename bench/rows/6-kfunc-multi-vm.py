#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 4200
"""kfunc:vfs_* and kfunc:* (every traceable BTF function) in the 7.2 VM, the first kernel with
tracing multi links: aotrace's one fentry multi link, aotrace's clone per function, and bpftrace
0.27.1, in one VM run with 1 vCPU."""
import os
import sys

from benchlib import table, vm_rows

limit = int(os.environ.get('KFUNC_BENCH_LIMIT', 600))
title = '## kfunc wildcards on tracing multi links (7.2 VM, TCG, 1 vCPU)\n'
rows, values = vm_rows(title, '7.2', 1, 'kfunc_multi_guest.sh', 4150,
                       'KFUNC_BENCH_LIMIT=%d' % limit)
funcs = values.get('FUNCS', ['?', '?', '?'])
funcs += ['?'] * (3 - len(funcs))
# the guest's raw times (uptime stamps) of each case, for the record
for k in sorted(k for k in values if k.startswith('CASE')):
    sys.stderr.write('%s: %s\n' % (k, ' | '.join(values[k])))
print(title)
print('`bench/lib/kfunc_multi_guest.sh` in `tests/vm/run --kernel 7.2 --cpus 1`: `kfunc:vfs_* {')
print('@[probe] = count(); }` (%s functions), `kfunc:acpi_*` (%s functions that seldom run there:'
      % (funcs[1], funcs[2]))
print('clones attach and exit within the limit) and `kfunc:* { @ = count(); }` (%s functions:'
      % funcs[0])
print('`aotrace -l \'kfunc:*\'`), each with an exit() from an interval after 2 s. From BEGIN until')
print('the program returns a shell loop reads a file every 20 ms; while a case loads and attaches')
print('nothing else runs in the guest but a check of its output each second that forks nothing:')
print('on one vCPU, with kfunc:* attached, whatever runs beside a case slows it down and is slowed')
print('down by it. "one tracing multi link" is aotrace\'s default there (the body reads no')
print('argument); "clones" is `AOTRACE_MULTI_LINKS=0`, one program copy and link per function;')
print('bpftrace 0.27.1 runs from its Debian sid chroot (tests/peers) with `BPFTRACE_MAX_PROBES`')
print('and `BPFTRACE_MAX_BPF_PROGS` raised for `kfunc:*`. Links are counted with one `bpftool')
print('link show` as soon as BEGIN has printed; "released" runs from exit() until `bpftool prog')
print('show` lists no tracing program. Each case runs at most %d s (`timeout`); one stopped there' % limit)
print('says how far it got. Under TCG the kernel\'s text patching dominates: these are not')
print('real-hardware times.\n')
out = []
for r in rows:
    if len(r) < 8:
        out.append([r[0], ' '.join(r[1:]).strip()] + [''] * 6)
        continue
    label, start, multi, single, ex, gone, keys, events = r[:8]
    out.append([label, start + ' s', multi, single, ex + ' s',
                gone if ' ' in gone else gone + ' s', keys, events])
print(table(['Case', 'Start to BEGIN', 'tracing_multi links', 'tracing links',
             'exit() to prompt', 'exit() to released', 'Keys printed', 'Events counted'], out))
print()
