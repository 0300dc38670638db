#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 4, kernel symbols: bench/ksyms_bench (aotrace's kallsyms index against libbcc's kernel
symbol cache in one process) run several times; medians and spread of what each run prints."""
import re
import subprocess

from benchlib import RUNS, log, med, ninja, ratio, shown, table

LOOKUPS = 2000000
EVENTS = 1000
PATTERNS = {
    'a_build': r'aotrace ksyms: build ([\d.]+) ms',
    'a_parse': r'index from text in memory ([\d.]+) ms',
    'b_build': r'bcc symcache\(-1\): build ([\d.]+) ms',
    'a_look': r'aotrace ksyms: ([\d.]+) M lookups/s',
    'b_look': r'bcc symcache\(-1\): ([\d.]+) M lookups/s',
    'a_cpu': r'([\d.]+) ms CPU per 1000 events',
    'nsyms': r'ms \(median of \d+; min [\d.]+\), (\d+) symbols',
}


def main():
    exe = ninja('bench/ksyms_bench')
    cmd = [exe, str(LOOKUPS), str(EVENTS)]
    vals = {k: [] for k in PATTERNS}
    last = ''
    for i in range(RUNS):
        log('  run %d' % (i + 1))
        last = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        for k, p in PATTERNS.items():
            vals[k].append(float(re.search(p, last).group(1)))
        if 'child ok' not in last:
            raise SystemExit('ksyms_bench: the loading child failed:\n' + last)

    def sp(v, unit, f='%.1f'):
        return '%s %s (%s – %s)' % (f % med(v), unit, f % min(v), f % max(v))

    print('## 4. Kernel symbols: aotrace\'s kallsyms index vs libbcc\'s symbol cache\n')
    print('Command: `%s` (`bench/ksyms_bench.c`), %d times; each run takes the median of 5 index '
          'builds inside, then times %d lookups of the same random addresses inside text symbols '
          'with each library, then the CPU time aotrace\'s live index spends following %d BPF '
          'program loads and %d unloads made by a child (PERF_RECORD_KSYMBOL). The table gives '
          'the median over runs (min – max). %d kallsyms symbols here. About 24 ms of a build is '
          'the kernel generating the text of /proc/kallsyms (`cat /proc/kallsyms` alone takes '
          'that), which bounds both.\n' % (shown(cmd), RUNS, LOOKUPS, EVENTS, EVENTS,
                                          med(vals['nsyms'])))
    print(table(['Measure', 'aotrace', 'libbcc (bcc_symcache_new(-1))', 'aotrace / libbcc'], [
        ['Build: open + read + index /proc/kallsyms', sp(vals['a_build'], 'ms'),
         sp(vals['b_build'], 'ms'), 'time ' + ratio(vals['a_build'], vals['b_build'])],
        ['Index alone, from the text in memory', sp(vals['a_parse'], 'ms'), '–', ''],
        ['Lookups per second', sp(vals['a_look'], 'M/s'), sp(vals['b_look'], 'M/s'),
         'rate ' + ratio(vals['a_look'], vals['b_look'])],
        ['CPU per 1000 BPF program load/unload events', sp(vals['a_cpu'], 'ms'),
         'not followed: libbcc rereads all of kallsyms on bcc_symcache_refresh(), a build each',
         ''],
    ]))
    print('\nLast run\'s output:\n\n```\n%s\n```' % last.strip())


if __name__ == '__main__':
    main()
