#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# bench-timeout: 4200
"""kfunc:vfs_* and kfunc:* (every traceable BTF function) in the 7.2 VM, the first kernel with
tracing multi links: aotrace's one fentry multi link, aotrace's clone per function, and bpftrace
0.27.1, in one VM run with 1 vCPU."""
import os

from benchlib import table, vm_rows

limit = int(os.environ.get('KFUNC_BENCH_LIMIT', 600))
title = '## kfunc wildcards on tracing multi links (7.2 VM, TCG, 1 vCPU)\n'
rows, values = vm_rows(title, '7.2', 1, 'kfunc_multi_guest.sh', 4150,
                       'KFUNC_BENCH_LIMIT=%d' % limit)
funcs = values.get('FUNCS', ['?', '?'])
print(title)
print('`bench/lib/kfunc_multi_guest.sh` in `tests/vm/run --kernel 7.2 --cpus 1`: `kfunc:vfs_* {')
print('@[probe] = count(); }` (%s functions) and `kfunc:* { @ = count(); }` (%s functions:'
      % (funcs[1], funcs[0]))
print('`aotrace -l \'kfunc:*\'`), each with an exit() from an interval after 2 s, while a shell')
print('loop reads a file every 20 ms. "one tracing multi link" is aotrace\'s default there (the')
print('body reads no argument); "clones" is `AOTRACE_MULTI_LINKS=0`, one program copy and link per')
print('function; bpftrace 0.27.1 runs from its Debian sid chroot (tests/peers) with')
print('`BPFTRACE_MAX_PROBES` and `BPFTRACE_MAX_BPF_PROGS` raised for `kfunc:*`. Links are')
print('counted with `bpftool link show` once BEGIN has run and their number stopped growing;')
print('"released" runs from exit() until no')
print('tracing program is loaded. A case that did not finish in %d s says so. Under TCG the' % limit)
print('kernel\'s text patching dominates: these are not real-hardware times.\n')
out = []
for r in rows:
    if len(r) < 8:
        out.append([r[0], ' '.join(r[1:]).strip()] + [''] * 6)
        continue
    label, start, multi, single, ex, gone, keys, events = r[:8]
    out.append([label, start + ' s', multi, single, ex + ' s', gone + ' s', keys, events])
print(table(['Case', 'Start to BEGIN', 'tracing_multi links', 'tracing links',
             'exit() to prompt', 'exit() to released', 'Keys printed', 'Events counted'], out))
print()
