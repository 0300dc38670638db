#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 3, repeat runs: the same program run again, with aotrace's object cache warm (no LLVM),
against aotrace --no-cache, aotrace-run on the same object, and the peers: bpftrace 0.27.1 first
(tests/peers/bpftrace-0.27, in its chroot), bpftrace 0.17 second, measured in the same rounds.
Short runs: the machine is shared with other sessions' tests."""
import os
import subprocess

from benchlib import (AOTRACE, AOTRACE_RUN, ROOT, TMP, Failed, bench, col, fmt_mib,
                      have_aotrace_run, log, med, ratio, spread, table, verdict)

PEER27 = os.path.join(ROOT, 'tests', 'peers', 'bpftrace-0.27')
# A tool ends 1 ms after printing its header.
TOOLS = ['execsnoop', 'opensnoop', 'killsnoop', 'naptime']
ONELINER = 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } BEGIN { exit(); }'


def programs():
    out = [('one-liner: `%s`' % ONELINER, ['-e', ONELINER], False)]
    for t in TOOLS:
        src = '/usr/sbin/%s.bt' % t
        if not os.path.exists(src):
            continue
        copy = os.path.join(TMP, t + '.bt')
        with open(src) as f, open(copy, 'w') as g:
            g.write(f.read() + '\ninterval:ms:1 { exit(); }\n')
        out.append(('%s.bt + `interval:ms:1 { exit(); }`' % t, [copy], True))
    return out


def main():
    os.environ['XDG_CACHE_HOME'] = os.path.join(TMP, 'cache')
    has_run = have_aotrace_run()
    results = []
    for i, (label, args, first) in enumerate(programs()):
        log('  %s' % label)
        cases = {'aotrace (cache warm)': [AOTRACE, '-q'] + args,
                 'aotrace --no-cache': [AOTRACE, '-q', '--no-cache'] + args}
        if has_run:
            elf = os.path.join(TMP, 'r%d.bpf.o' % i)
            if subprocess.run([AOTRACE, '--emit-elf', elf] + args,
                              capture_output=True).returncode == 0:
                cases['aotrace-run'] = [AOTRACE_RUN, '-q', elf]
        cases['bpftrace 0.27.1'] = [PEER27, '-q'] + args
        cases['bpftrace 0.17'] = ['bpftrace', '-q'] + args
        # the warm-up run of bench() fills the cache
        results.append((label, first, cases, bench(cases, first_line=first)))

    print('## 3. Repeat runs: the object cache warm\n')
    print('The same program run again and again: `$BUILD/aotrace -q ARGS` with its object cache '
          'warm (`XDG_CACHE_HOME` in the bench\'s temporary folder; bench()\'s warm-up run fills '
          'it), `$BUILD/aotrace -q --no-cache ARGS` (compiles every time), `$BUILD/aotrace-run -q '
          'P.bpf.o` (made beforehand by `--emit-elf`, not timed), `tests/peers/bpftrace-0.27 -q '
          'ARGS` (bpftrace 0.27.1 in its chroot: the wrapper\'s unshare and mounts are in its '
          'time) and `bpftrace -q ARGS` (0.17). Each tool is a copy of `/usr/sbin/TOOL.bt` with '
          '`interval:ms:1 { exit(); }` appended, so it ends 1 ms after its header; "first line" is the '
          'header; the tools are those of Debian\'s package that attach no kprobe (this host has '
          'none), naptime.bt with its #include lines. Ratios are aotrace (cache warm) / each. '
          'The machine was shared with other sessions running tests: short runs (`--runs 3`), '
          'spreads given.\n')
    rows = []
    for label, first, cases, res in results:
        mine = res['aotrace (cache warm)']
        for tool in cases:
            r = res[tool]
            cell0 = label if tool == 'aotrace (cache warm)' else ''
            if isinstance(r, Failed):
                rows.append([cell0, tool, 'failed: %s' % (r.err or 'exit %d' % r.rc), '', '',
                             ''])
                continue
            ratios = []
            if tool != 'aotrace (cache warm)' and not isinstance(mine, Failed):
                aim = {'aotrace-run': 1.5, 'bpftrace 0.27.1': 0.05}.get(tool)
                for key, name in (('first', 'first'), ('wall', 'total')):
                    if key == 'first' and not first:
                        continue
                    rt = ratio(col(mine, key), col(r, key))
                    ratios.append('%s %s' % (name, verdict(rt, aim) if aim else rt))
                ratios.append('RSS ' + ratio(col(mine, 'rss'), col(r, 'rss')))
            rows.append([cell0, tool, spread(col(r, 'first')) if first else '–',
                         spread(col(r, 'wall')), fmt_mib(med(col(r, 'rss'))),
                         '<br>'.join(ratios)])
    print(table(['Program', 'Tool', 'First line', 'Total', 'Peak RSS',
                 'aotrace (cache warm) / this'], rows))


if __name__ == '__main__':
    main()
