#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 1, compile: wall time and peak RSS of --emit-elf for each of the bpftrace tool scripts
Debian ships (`dpkg -L bpftrace`), aotrace against bpftrace 0.17, plus a one-liner and
--version (what the process costs before it compiles anything)."""
import os
import subprocess

from benchlib import (AOTRACE, RUNS, TMP, Failed, bench, col, fmt_mib, fmt_ms, log, med,
                      ratio, shown, spread, table, verdict)

ONELINER = 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } BEGIN { exit(); }'


def tools():
    out = subprocess.run(['dpkg', '-L', 'bpftrace'], capture_output=True, text=True,
                         check=True).stdout.split()
    return sorted(p for p in out if p.endswith('.bt'))


def cmds(src, name):
    a = [AOTRACE, '--emit-elf', os.path.join(TMP, name + '.a.o')]
    b = ['bpftrace', '--emit-elf', os.path.join(TMP, name + '.b.o')]
    return a + src, b + src


def main():
    scripts = tools()
    res = {}
    for s in scripts:
        name = os.path.basename(s)
        log('  %s' % name)
        a, b = cmds([s], name)
        res[name] = bench({'a': a, 'b': b})
    both = [n for n in res if not any(isinstance(r, Failed) for r in res[n].values())]

    print('## 1. Compile: `--emit-elf` of the %d bpftrace tools in Debian\'s bpftrace package\n'
          % len(scripts))
    print('Command, for each `S` in `dpkg -L bpftrace | grep \'\\.bt$\'`: '
          '`$BUILD/aotrace --emit-elf S.o S` and `bpftrace --emit-elf S.o S`. Wall time around '
          'the process; CPU time (user + system, 10 ms resolution) and peak RSS from '
          '`/usr/bin/time`, '
          'CPU time being what a loaded host disturbs least; the two tools alternate run by run. '
          'Totals are over the scripts both compile: per round the sum over scripts, then the '
          'median and spread of the %d rounds.\n' % RUNS)
    tot, cpu = {}, {}
    for t in 'ab':
        tot[t] = [sum(res[n][t][i]['wall'] for n in both) for i in range(RUNS)]
        cpu[t] = [sum(res[n][t][i]['cpu'] for n in both) for i in range(RUNS)]
    rss = {t: [med(col(res[n][t], 'rss')) for n in both] for t in 'ab'}
    print(table(['', 'aotrace', 'bpftrace 0.17', 'aotrace / bpftrace'], [
        ['Scripts compiled', '%d of %d' % (sum(not isinstance(res[n]['a'], Failed)
                                               for n in res), len(res)),
         '%d of %d' % (sum(not isinstance(res[n]['b'], Failed) for n in res), len(res)), ''],
        ['Total wall time, the %d both compile' % len(both), spread(tot['a']), spread(tot['b']),
         verdict(ratio(tot['a'], tot['b']), 0.25)],
        ['Total CPU time (user + system), the same', spread(cpu['a']), spread(cpu['b']),
         verdict(ratio(cpu['a'], cpu['b']), 0.25)],
        ['Peak RSS, median over those scripts (min – max)', spread(rss['a'], fmt_mib),
         spread(rss['b'], fmt_mib), verdict(ratio(rss['a'], rss['b']), 1 / 3)],
    ]))
    fails = []
    for n in scripts:
        n = os.path.basename(n)
        for t, tool in (('a', 'aotrace'), ('b', 'bpftrace')):
            if isinstance(res[n][t], Failed):
                fails.append('`%s` (%s): %s' % (n, tool, res[n][t].err or 'exit %d' % res[n][t].rc))
    if fails:
        print('\nFailures on this host (not timed):\n')
        for f in fails:
            print('- ' + f)

    # The process alone, and the one-liner of the earlier bench.
    one_a, one_b = cmds(['-e', ONELINER], 'oneliner')
    extra = bench({'va': [AOTRACE, '--version'], 'vb': ['bpftrace', '--version'],
                   'oa': one_a, 'ob': one_b})
    print('\nThe process alone and a one-liner:\n')
    rows = []
    for what, ka, kb in (('`--version`', 'va', 'vb'), ('one-liner', 'oa', 'ob')):
        ra, rb = extra[ka], extra[kb]
        ca = [AOTRACE, '--version'] if ka == 'va' else one_a
        cb = ['bpftrace', '--version'] if kb == 'vb' else one_b
        if isinstance(ra, Failed) or isinstance(rb, Failed):
            rows.append([what, '`%s`' % shown(ca), 'failed: %s' % (ra if isinstance(ra, Failed)
                                                                   else rb), '', '', '', ''])
            continue
        rows.append([what, '`%s`<br>`%s`' % (shown(ca), shown(cb)),
                     spread(col(ra, 'wall')), spread(col(rb, 'wall')),
                     fmt_mib(med(col(ra, 'rss'))), fmt_mib(med(col(rb, 'rss'))),
                     'time %s, RSS %s' % (ratio(col(ra, 'wall'), col(rb, 'wall')),
                                          ratio(col(ra, 'rss'), col(rb, 'rss')))])
    print(table(['Case', 'Commands (aotrace, bpftrace)', 'aotrace wall', 'bpftrace wall',
                 'aotrace RSS', 'bpftrace RSS', 'aotrace / bpftrace'], rows))

    print('\nPer script (median wall time, min – max; median CPU time; median peak RSS):\n')
    rows = []
    for s in scripts:
        n = os.path.basename(s)
        cells = [n]
        for t in 'ab':
            r = res[n][t]
            cells += ['failed', '', ''] if isinstance(r, Failed) else [
                spread(col(r, 'wall')), fmt_ms(med(col(r, 'cpu'))), fmt_mib(med(col(r, 'rss')))]
        if n in both:
            cells.append(', '.join('%s %s' % (k, ratio(col(res[n]['a'], key),
                                                       col(res[n]['b'], key)))
                                   for k, key in (('wall', 'wall'), ('CPU', 'cpu'),
                                                  ('RSS', 'rss'))))
        else:
            cells.append('')
        rows.append(cells)
    print(table(['Script', 'aotrace wall', 'CPU', 'RSS', 'bpftrace wall', 'CPU', 'RSS',
                 'aotrace / bpftrace'], rows))


if __name__ == '__main__':
    main()
