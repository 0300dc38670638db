#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 9, --metrics: what a scrape costs and whether memory stays flat over many of them.
aotrace-run serves two big maps (4000 counter keys, 64 histograms) and a client scrapes them
back to back; the process's VmRSS is read from /proc between scrapes. No peer: bpftrace has no
such server, and Cloudflare's ebpf_exporter, which has, is not packaged in Debian."""
import http.client
import os
import socket
import subprocess
import sys
import time

from benchlib import (AOTRACE, AOTRACE_RUN, TMP, fmt_mib, have_aotrace_run, log, med, ninja,
                      shown, table)

SCRAPES = 2000
SAMPLES = (1, 10, 100, 500, 1000, 2000)
FILL = 400000  # getppid() calls: enough to give every key a value
PROG = ('tracepoint:syscalls:sys_enter_getppid { @calls[nsecs % 4000] = count(); '
        '@lat[nsecs % 64] = hist(nsecs % 1000000); }')


def status(pid, field):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return 0


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def scrape(port):
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    t = time.monotonic()
    c.request('GET', '/metrics')
    r = c.getresponse()
    body = r.read()
    dt = time.monotonic() - t
    c.close()
    if r.status != 200:
        raise SystemExit('scrape: HTTP %d' % r.status)
    return dt, body


def start(cmd, metrics):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if metrics:
        line = p.stderr.readline()
        if not line.startswith('Serving metrics on'):
            p.kill()
            raise SystemExit('%s: %s' % (shown(cmd), line.strip() or 'no server'))
    else:
        time.sleep(1)
    return p


def main():
    if os.geteuid() != 0 or not have_aotrace_run():
        print('Not measured: needs root and `%s`.' % shown([AOTRACE_RUN]))
        return 77
    loop = ninja('bench/syscall_loop')
    elf = os.path.join(TMP, 'metrics.bpf.o')
    subprocess.run([AOTRACE, '--emit-elf', elf, '-e', PROG], check=True)
    port = free_port()
    served = [AOTRACE_RUN, '-q', '--metrics', '127.0.0.1:%d' % port, elf]
    plain = [AOTRACE_RUN, '-q', elf]

    log('  without --metrics')
    p = start(plain, False)
    subprocess.run([loop, 'getppid', str(FILL)], check=True)
    base = status(p.pid, 'VmRSS')
    p.send_signal(2)
    p.wait()

    log('  with --metrics, %d scrapes' % SCRAPES)
    p = start(served, True)
    subprocess.run([loop, 'getppid', str(FILL)], check=True)
    before = status(p.pid, 'VmRSS')
    rss, times, size = {}, [], 0
    for i in range(1, SCRAPES + 1):
        dt, body = scrape(port)
        times.append(dt)
        size = len(body)
        if i in SAMPLES:
            rss[i] = status(p.pid, 'VmRSS')
    series = sum(1 for line in body.decode().splitlines() if line and line[0] != '#')
    hwm = status(p.pid, 'VmHWM')
    p.send_signal(2)
    p.wait()

    times.sort()
    print('## 9. `--metrics`: scrape cost and memory over %d scrapes\n' % SCRAPES)
    print('`$BUILD/aotrace --emit-elf metrics.bpf.o -e \'%s\'`, then `%s`; `bench/syscall_loop '
          'getppid %d` gives every key a value (%d series: 4000 counters, 64 histograms with '
          'their buckets, sums and counts; %.0f KiB of text), and a client GETs /metrics %d '
          'times back to back, each on a new connection (as every response closes its own). '
          'VmRSS is read from /proc after the scrapes named; the same object run without '
          '`--metrics` is the baseline. One run: the scrape times are %d samples.\n'
          % (PROG, shown(served).replace(str(port), 'PORT'), FILL, series, size / 1024,
             SCRAPES, SCRAPES))
    rows = [['without `--metrics`, maps filled', fmt_mib(base)],
            ['with `--metrics`, maps filled, no scrape yet', fmt_mib(before)]]
    rows += [['after %d scrapes' % n, fmt_mib(rss[n])] for n in SAMPLES]
    rows.append(['peak (VmHWM) at the end', fmt_mib(hwm)])
    print(table(['aotrace-run', 'VmRSS'], rows))
    print()
    print(table(['Scrape (request to last byte)', 'median', '90th percentile', 'max'],
                [['%d series, %.0f KiB' % (series, size / 1024), '%.1f ms' % (med(times) * 1e3),
                  '%.1f ms' % (times[int(len(times) * 0.9)] * 1e3),
                  '%.1f ms' % (times[-1] * 1e3)]]))
    print()
    grew = rss[SAMPLES[-1]] - rss[SAMPLES[1]]
    print('From the 10th scrape to the %dth, VmRSS changed by %+d KiB.' % (SCRAPES, grew))
    return 0


if __name__ == '__main__':
    sys.exit(main())
