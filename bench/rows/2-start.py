#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 2, start: time from the start of the process to its first line of output, total wall
time and peak RSS of one-liners, for aotrace (compile + run), aotrace-run (an object compiled
beforehand by --emit-elf) and bpftrace 0.17."""
import os
import subprocess

from benchlib import (AOTRACE, AOTRACE_RUN, RUNS, TMP, Failed, bench, col, fmt_mib,
                      have_aotrace_run, log, med, ninja, ratio, shown, spread, table, verdict)

# (label, program, whether its first stdout line is timed, needs an openat() source)
PROGRAMS = [
    ('BEGIN, exit', 'BEGIN { exit(); }', False, False),
    ('BEGIN printf, exit', 'BEGIN { printf("go\\n"); exit(); }', True, False),
    ('tracepoint count, exit from interval',
     'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } interval:ms:100 { exit(); }',
     False, False),
    ('first tracepoint event',
     'tracepoint:syscalls:sys_enter_openat { printf("%s\\n", comm); exit(); }', True, True),
    ('tracepoint count, BEGIN exit (the earlier bench)',
     'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } BEGIN { exit(); }', False,
     False),
]


def main():
    loop = ninja('bench/syscall_loop')
    has_run = have_aotrace_run()
    results = []
    for i, (label, prog, first, source) in enumerate(PROGRAMS):
        log('  %s' % label)
        cases = {'aotrace': [AOTRACE, '-q', '-e', prog]}
        if has_run:
            elf = os.path.join(TMP, 'p%d.bpf.o' % i)
            subprocess.run([AOTRACE, '--emit-elf', elf, '-e', prog], check=True)
            cases['aotrace-run'] = [AOTRACE_RUN, '-q', elf]
        cases['bpftrace'] = ['bpftrace', '-q', '-e', prog]
        gen = subprocess.Popen([loop, 'openat']) if source else None
        try:
            results.append((label, prog, first, cases, bench(cases, first_line=first)))
        finally:
            if gen:
                gen.kill()
                gen.wait()

    print('## 2. Start: one-liners, start to first output, total time, peak RSS\n')
    print('Each program runs as `$BUILD/aotrace -q -e PROGRAM`, as `$BUILD/aotrace-run -q P.bpf.o` '
          '(compiled beforehand by `$BUILD/aotrace --emit-elf P.bpf.o -e PROGRAM`, not timed) and '
          'as `bpftrace -q -e PROGRAM`, with stdout a pipe read by the bench. "First line" is '
          'from just before the fork to the first line on stdout: for the BEGIN printf, the '
          'probes are loaded and attached; for "first tracepoint event", `bench/syscall_loop '
          'openat` opens /dev/null every 0.2 ms in the background, so the line is the first '
          'event traced. Total is until the process has exited; peak RSS from '
          '`/usr/bin/time -f %M` (which wraps every run, for every tool alike).\n')
    if not has_run:
        print('`aotrace-run` is not in this build (`%s` missing): its rows are not measured.\n'
              % shown([AOTRACE_RUN]))
    rows = []
    for label, prog, first, cases, res in results:
        peer = res['bpftrace']
        for tool in cases:
            r = res[tool]
            cell0 = '%s: `%s`' % (label, prog) if tool == 'aotrace' else ''
            if isinstance(r, Failed):
                rows.append([cell0, tool, 'failed: %s' % (r.err or 'exit %d' % r.rc), '', '', '',
                             ''])
                continue
            ratios = []
            if tool != 'bpftrace' and not isinstance(peer, Failed):
                if first:
                    ratios.append('first ' + verdict(ratio(col(r, 'first'), col(peer, 'first')),
                                                     0.25))
                ratios.append('total ' + verdict(ratio(col(r, 'wall'), col(peer, 'wall')), 0.25))
                ratios.append('RSS ' + verdict(ratio(col(r, 'rss'), col(peer, 'rss')), 1 / 3))
            rows.append([cell0, tool, spread(col(r, 'first')) if first else '–',
                         spread(col(r, 'wall')), fmt_mib(med(col(r, 'rss'))),
                         '<br>'.join(ratios)])
    print(table(['Program', 'Tool', 'First line', 'Total', 'Peak RSS', 'vs bpftrace'], rows))

    # The peer where the kernel is the limit: the same operations done directly.
    kf = [ninja('bench/kernel_floor'), str(RUNS)]
    out = subprocess.run(kf, capture_output=True, text=True)
    print('\nThe plain kernel operations under a tracepoint one-liner, done directly by `%s` '
          '(`bench/kernel_floor.c`, %d times): the floor of its start and of its end.\n'
          % (shown(kf), RUNS))
    if out.returncode != 0:
        print('Not measured: %s' % out.stderr.strip())
        return
    phases = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in out.stdout.splitlines()}
    print(table(['Operation', 'Median (min – max)'], [
        [label, '%.2f ms (%.2f – %.2f)' % tuple(phases[k])] for k, label in (
            ('load', '`bpf_prog_load` of a 2-instruction tracepoint program'),
            ('attach', '`perf_event_open` of syscalls:sys_enter_openat + `bpf_link_create`'),
            ('release', '`close()` of the link and the event (the tracepoint\'s release)'))]))


if __name__ == '__main__':
    main()
