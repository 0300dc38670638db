#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ring.test's generator and check.

    ring_check.py gen N        lseek(fd, 2^40 + i, SEEK_SET) for i in 0..N-1, from one thread
    ring_check.py check N OUT ERR
    ring_check.py maps PID     the sizes of PID's mappings of BPF maps

N numbered events went through the ring; OUT holds the printed ones and the "Lost N events"
lines (on stdout, as bpftrace prints them), ERR the run's messages. Each printed line must be
whole and come after the one before it; the events not printed must be those the Lost lines
counted; ERR must hold no ERROR or WARNING."""
import os
import re
import sys

if sys.argv[1] == 'gen':
    fd = os.open('/dev/null', os.O_RDONLY)
    for i in range(int(sys.argv[2])):
        os.lseek(fd, (1 << 40) + i, 0)
    sys.exit(0)
if sys.argv[1] == 'maps':
    sizes = []
    for line in open('/proc/%s/maps' % sys.argv[2]):
        f = line.split()
        if len(f) >= 6 and f[5] == 'anon_inode:bpf-map':
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            sizes.append(hi - lo)
    print('bpf-map mappings: %d, largest %d KiB, total %d KiB'
          % (len(sizes), max(sizes, default=0) // 1024, sum(sizes) // 1024))
    sys.exit(0)
sent, out, err = int(sys.argv[2]), sys.argv[3], sys.argv[4]
tail = '0123456789' * 10
seen, last, lost, bad = 0, -1, 0, []
for line in open(out, errors='replace'):
    line = line.rstrip('\n')
    if not line:
        continue
    m = re.fullmatch(r'Lost (\d+) events', line)
    if m:
        lost += int(m.group(1))
        continue
    m = re.fullmatch(r'ev (\d+) (.*)', line)
    if not m or m.group(2) != tail:
        bad.append('not an event line: %r' % line[:80])
        continue
    n = int(m.group(1))
    if n <= last:
        bad.append('event %d after %d' % (n, last))
    last = n
    seen += 1
for line in open(err, errors='replace'):
    if re.search(r'ERROR|WARNING', line):
        bad.append('stderr: %s' % line.strip()[:80])
if seen + lost != sent:
    bad.append('%d printed and %d lost of %d sent' % (seen, lost, sent))
for b in bad[:10]:
    print('BAD', b)
if not bad:
    print('ring ok: %d printed, %d lost, %d sent' % (seen, lost, sent))
