#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 1, compile: wall time and peak RSS of --emit-elf for each of the bpftrace tool scripts
Debian ships (`dpkg -L bpftrace`), aotrace against bpftrace 0.17, plus a one-liner and
--version (what the process costs before it compiles anything); and a cold compile, load and
attach (`--dry-run`, aotrace with --no-cache) against bpftrace 0.27.1, whose --emit-elf goes on
to attach and run the program (measured: 0.27.1's `--emit-elf F execsnoop.bt` was still
tracing 10 minutes later)."""
import os
import shutil
import subprocess

from benchlib import (AOTRACE, RUNS, TMP, Failed, bench, col, fmt_mib, fmt_ms, log, med,
                      ratio, shown, spread, table, verdict)

ONELINER = 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } BEGIN { exit(); }'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER27 = os.path.join(ROOT, 'tests', 'peers', 'bpftrace-0.27')


def tools():
    out = subprocess.run(['dpkg', '-L', 'bpftrace'], capture_output=True, text=True,
                         check=True).stdout.split()
    return sorted(p for p in out if p.endswith('.bt'))


def cmds(src, name):
    a = [AOTRACE, '--emit-elf', os.path.join(TMP, name + '.a.o')]
    b = ['bpftrace', '--emit-elf', os.path.join(TMP, name + '.b.o')]
    return a + src, b + src


def have_peer27():
    return subprocess.run([PEER27, '--version'], capture_output=True).returncode == 0


def main():
    scripts = tools()
    peer27 = have_peer27()
    res = {}
    for s in scripts:
        name = os.path.basename(s)
        log('  %s' % name)
        a, b = cmds([s], name)
        cases = {'a': a, 'b': b}
        if peer27:
            # the peer sees the host's /tmp, not its /usr/sbin (the chroot's has 0.27's tools)
            copy = os.path.join(TMP, name)
            shutil.copy(s, copy)
            cases['d'] = [AOTRACE, '--no-cache', '--dry-run', s]
            cases['n'] = [PEER27, '--dry-run', copy]
        res[name] = bench(cases)
    both = [n for n in res if not any(isinstance(res[n][t], Failed) for t in 'ab')]

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

    if peer27:
        dry = [n for n in res if not any(isinstance(res[n][t], Failed) for t in 'dn')]
        dt = {t: [sum(res[n][t][i]['wall'] for n in dry) for i in range(RUNS)] for t in 'dn'}
        dc = {t: [sum(res[n][t][i]['cpu'] for n in dry) for i in range(RUNS)] for t in 'dn'}
        drss = {t: [med(col(res[n][t], 'rss')) for n in dry] for t in 'dn'}
        print('\nCold compile, load and attach against bpftrace 0.27.1: `$BUILD/aotrace --no-cache '
              '--dry-run S` and `tests/peers/bpftrace-0.27 --dry-run S` (a copy of S in /tmp: '
              'the peer opens its chroot\'s /usr/sbin), each loading and attaching the probes '
              'and ending there (no BEGIN); the peer\'s time includes its wrapper\'s unshare '
              'and mounts (its `--version` below). %d scripts both run; %d of %d for '
              'aotrace, %d of %d for bpftrace 0.27.1 (which refuses kprobes on this host).\n'
              % (len(dry), sum(not isinstance(res[n]['d'], Failed) for n in res), len(res),
                 sum(not isinstance(res[n]['n'], Failed) for n in res), len(res)))
        print(table(['', 'aotrace --no-cache --dry-run', 'bpftrace 0.27.1 --dry-run',
                     'aotrace / bpftrace 0.27.1'], [
            ['Total wall time, the %d both run' % len(dry), spread(dt['d']), spread(dt['n']),
             verdict(ratio(dt['d'], dt['n']), 0.2)],
            ['Total CPU time (user + system), the same', spread(dc['d']), spread(dc['n']),
             ratio(dc['d'], dc['n'])],
            ['Peak RSS, median over those scripts (min – max)', spread(drss['d'], fmt_mib),
             spread(drss['n'], fmt_mib), verdict(ratio(drss['d'], drss['n']), 0.3)],
        ]))
        for n in scripts:
            n = os.path.basename(n)
            for t, tool in (('d', 'aotrace --dry-run'), ('n', 'bpftrace 0.27.1')):
                if isinstance(res[n][t], Failed):
                    fails.append('`%s` (%s): %s' % (n, tool, res[n][t].err or
                                                    'exit %d' % res[n][t].rc))
    else:
        print('\nbpftrace 0.27.1 (tests/peers/bpftrace-0.27) is not installed here: no '
              'comparison with it (`./dev peers`).')
    if fails:
        print('\nFailures on this host (not timed):\n')
        for f in fails:
            print('- ' + f)

    # The process alone, and the one-liner of the earlier bench.
    one_a, one_b = cmds(['-e', ONELINER], 'oneliner')
    extra = bench({'va': [AOTRACE, '--version'], 'vb': ['bpftrace', '--version'],
                   'oa': one_a, 'ob': one_b}
                  | ({'vn': [PEER27, '--version']} if peer27 else {}))
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
    if peer27 and not isinstance(extra['vn'], Failed):
        print('\n`tests/peers/bpftrace-0.27 --version` (the wrapper and the peer\'s start): '
              '%s, %s.' % (spread(col(extra['vn'], 'wall')),
                           fmt_mib(med(col(extra['vn'], 'rss')))))

    print('\nPer script (median wall time, min – max; median CPU time; median peak RSS; the '
          '--dry-run columns: median wall, median peak RSS):\n')
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
        if peer27:
            for t in 'dn':
                r = res[n][t]
                cells.append('failed' if isinstance(r, Failed) else '%s, %s' % (
                    fmt_ms(med(col(r, 'wall'))), fmt_mib(med(col(r, 'rss')))))
            ok = not any(isinstance(res[n][t], Failed) for t in 'dn')
            cells.append('wall %s' % ratio(col(res[n]['d'], 'wall'), col(res[n]['n'], 'wall'))
                         if ok else '')
        rows.append(cells)
    heads = ['Script', 'aotrace wall', 'CPU', 'RSS', 'bpftrace wall', 'CPU', 'RSS',
             'aotrace / bpftrace']
    if peer27:
        heads += ['aotrace --dry-run (wall, RSS)', 'bpftrace 0.27.1 --dry-run',
                  'aotrace / 0.27.1']
    print(table(heads, rows))


if __name__ == '__main__':
    main()
