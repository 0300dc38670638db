#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that the linker laid out aotrace's LLVM functions by
bench/llvm-order/llvm-order.txt.

    tests/check_llvm_order.py AOTRACE ORDER_FILE

Three things that fail when the order is lost (a linker change, a stale list after an LLVM
upgrade): most of the listed functions exist in the binary; the ones LLVM's static
constructors run sit together instead of across all of the text; and the
peak RSS of `--version` and of a small compile stay under bounds that the unordered binary
exceeds (23 and 34 MB on the machine the list was made on; bpftrace 0.17 takes 61 and 89).
"""
import os
import subprocess
import sys
import tempfile

MIN_PRESENT = 0.9          # of the listed functions, found in the binary
MAX_STARTUP_SPAN = 2 << 20  # bytes of text holding 98 % of the start-up functions (unordered: 27 MB)
MAX_RSS_VERSION = 16 << 10  # KiB
MAX_RSS_COMPILE = 30 << 10  # KiB: a third of bpftrace 0.17's 89 MB for a one-liner


def peak_rss_kib(cmd, cwd):
    """Peak RSS of one command, as GNU time reports it (a child forked from this Python would
    count Python's own pages until the exec)."""
    out = os.path.join(cwd, 'rss')
    subprocess.run(['/usr/bin/time', '-f', '%M', '-o', out, *cmd], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        return int(f.read().split()[-1])


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    aotrace, order = (os.path.abspath(p) for p in sys.argv[1:])
    names = []
    with open(order) as f:
        for line in f:
            line = line.strip()
            if line.startswith('.text.') and not line.startswith('.text.startup'):
                names.append(line[len('.text.'):])
    out = subprocess.run(['nm', '--defined-only', aotrace], capture_output=True, text=True,
                         check=True).stdout
    addr = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW':
            addr[f[2]] = int(f[0], 16)
    fails = []
    present = [n for n in names if n in addr]
    share = len(present) / max(len(names), 1)
    print('%d of %d listed functions in the binary (%.0f %%)' %
          (len(present), len(names), 100 * share))
    if share < MIN_PRESENT:
        fails.append('the list is stale: run ./dev llvm-order')
    # The start-up functions are the first block of the list, sorted by name
    # (bench/llvm-order/gen-llvm-order).
    block = []
    for n in names:
        if block and n < block[-1]:
            break
        block.append(n)
    block = sorted(addr[n] for n in block if n in addr)
    span = block[len(block) * 99 // 100] - block[len(block) // 100] if block else 0
    print('%d start-up functions, 98 %% of them within %.1f MB of text' %
          (len(block), span / (1 << 20)))
    if len(block) < 100 or span > MAX_STARTUP_SPAN:
        fails.append('start-up functions are not laid out together')
    with tempfile.TemporaryDirectory() as tmp:
        v = peak_rss_kib([aotrace, '--version'], tmp)
        c = peak_rss_kib([aotrace, '--emit-elf', 'x.o', '-e',
                          'BEGIN { printf("%d\\n", 42); @[comm] = count(); exit(); }'], tmp)
    print('peak RSS: --version %d KiB (bound %d), compile %d KiB (bound %d)' %
          (v, MAX_RSS_VERSION, c, MAX_RSS_COMPILE))
    if v > MAX_RSS_VERSION or c > MAX_RSS_COMPILE:
        fails.append('peak RSS over its bound')
    for f in fails:
        print('FAIL: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
