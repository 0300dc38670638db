#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Row 5, per-event cost of the generated code: the kernel's own accounting of each program
(kernel.bpf_stats_enabled=1: run_time_ns and run_cnt, as `bpftool prog show` reports them)
over a fixed getppid() loop, aotrace against bpftrace 0.27.1 (the first peer, in its chroot) and
bpftrace 0.17 in the same run."""
import json
import os
import signal
import subprocess
import time

from benchlib import (AOTRACE, ROOT, RUNS, Failed, first_error, log, med, ninja, ratio, table,
                      verdict)

CALLS = 1000000
# The first is the floor: a program that does next to nothing, so that what the others add to
# it is the cost of their own code (the accounting's clock reads and the entry are in the floor).
PROGRAMS = [
    ('floor, next to nothing',
     'tracepoint:syscalls:sys_enter_getppid { if (pid == 0) { exit(); } }'),
    ('count by comm, every syscall',
     'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }'),
    ('hist of a value, getppid',
     'tracepoint:syscalls:sys_enter_getppid { @ = hist(nsecs & 0xfffff); }'),
]
STATS = '/proc/sys/kernel/bpf_stats_enabled'
# The peers, first the one the aims are against; the chroot wrapper execs into bpftrace, so the
# process it starts holds the programs.
PEERS = [('bpftrace 0.27.1', os.path.join(ROOT, 'tests', 'peers', 'bpftrace-0.27')),
         ('bpftrace 0.17', 'bpftrace')]


def prog_ids(pid):
    """Ids of the BPF programs the process holds (prog and link fds both name theirs)."""
    ids = set()
    d = '/proc/%d/fdinfo' % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                for line in f:
                    if line.startswith('prog_id:'):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def prog_stats(ids):
    out = subprocess.run(['bpftool', 'prog', 'show', '-j'], capture_output=True, text=True,
                         check=True).stdout
    return {p['id']: p for p in json.loads(out) if p['id'] in ids}


def loop_ns(loop, n):
    t0 = time.monotonic()
    subprocess.run([loop, 'getppid', str(n)], check=True)
    return (time.monotonic() - t0) / n * 1e9


def one(cmd, loop):
    """Starts cmd, waits until its program runs, returns (ns per event, loop ns per call,
    program info) over CALLS getppid() calls."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            if p.poll() is not None:
                raise Failed(cmd, p.returncode, first_error(p.stderr.read().decode()))
            if time.monotonic() > deadline:
                raise Failed(cmd, -1, 'its program did not run within 20 s')
            ids = prog_ids(p.pid)
            if ids:
                subprocess.run([loop, 'getppid', '1000'], check=True)
                if any(s.get('run_cnt', 0) for s in prog_stats(ids).values()):
                    break
            time.sleep(0.05)
        s0 = prog_stats(ids)
        per_call = loop_ns(loop, CALLS)
        s1 = prog_stats(ids)
        best = max(s1, key=lambda i: s1[i].get('run_cnt', 0) - s0[i].get('run_cnt', 0))
        cnt = s1[best]['run_cnt'] - s0[best].get('run_cnt', 0)
        ns = (s1[best]['run_time_ns'] - s0[best].get('run_time_ns', 0)) / cnt
        return ns, per_call, s1[best], cnt
    finally:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def leader(prog):
    """An empty program on prog's probe, attached before the tools' and kept while they are
    measured: the first program of a tracepoint takes the page walks every syscall's TLB flush
    leaves (this host runs PTI without PCID, bench/NOTES.md), 35-50 ns that would otherwise fall
    on whichever tool is measured. Returns the process, once its program has run."""
    probe = prog.split('{', 1)[0].strip()
    cmd = ['bpftrace', '-q', '-e', '%s { }' % probe]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not prog_ids(p.pid) or not any(
            s.get('run_cnt', 0) for s in prog_stats(prog_ids(p.pid)).values()):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            raise Failed(cmd, p.wait(), first_error(p.stderr.read().decode()))
        subprocess.run([ninja('bench/syscall_loop'), 'getppid', '1000'], check=True)
        time.sleep(0.05)
    return p


def main():
    loop = ninja('bench/syscall_loop')
    with open(STATS) as f:
        old = f.read().strip()
    res = {}
    try:
        with open(STATS, 'w') as f:
            f.write('1')
        base = []
        for label, prog in PROGRAMS:
            cmds = {'aotrace': [AOTRACE, '-q', '-e', prog]}
            cmds.update({name: [cmd, '-q', '-e', prog] for name, cmd in PEERS})
            r = res[label] = {t: [] for t in cmds}
            # the loop alone, before the leader attaches
            base.extend(loop_ns(loop, CALLS) for _ in range(RUNS))
            first = leader(prog)
            try:
                rounds(label, cmds, r, loop)
            finally:
                first.send_signal(signal.SIGINT)
                first.wait(timeout=20)
    finally:
        with open(STATS, 'w') as f:
            f.write(old)
    report(res, base, old)


def rounds(label, cmds, r, loop):
    for i in range(RUNS):
        log('  %s, round %d' % (label, i + 1))
        for tool in (list(cmds) if i % 2 == 0 else list(reversed(cmds))):
            if isinstance(r[tool], Failed):
                continue
            try:
                r[tool].append(one(cmds[tool], loop))
            except Failed as e:
                log('  %s: %s' % (tool, e))
                r[tool] = e


def report(res, base, old):
    print('## 5. Per-event cost of the generated code\n')
    print('With `sysctl kernel.bpf_stats_enabled=1` (restored to %s afterwards), each tool runs '
          '`TOOL -q -e PROGRAM`; once its program has run, the bench reads `run_time_ns` and '
          '`run_cnt` of the program (`bpftool prog show -j`, the program found through the '
          'fds of the process), runs `bench/syscall_loop getppid %d` (%d `syscall(SYS_getppid)` '
          'calls), reads them again and divides the differences. %d rounds, the tools '
          'alternating which goes first; the table gives the median (min – max) of the rounds. '
          'The loop\'s own time per call is shown too, against the same loop with nothing '
          'attached (%s, median of %d). `run_time_ns` includes the kernel\'s two clock reads '
          'of the accounting itself, the same for every tool. bpftrace 0.27.1 is '
          '`tests/peers/bpftrace-0.27` (bpftrace in its chroot; the chroot does not change '
          'what its programs cost). The count program also sees the '
          'syscalls of everything else on the host while the loop runs. The first program is '
          'the floor, the cost of running a program that does next to nothing (its entry and '
          'the accounting); "above the floor" is what the code of the others adds to it. '
          'Each tool\'s program runs second on its tracepoint, behind an empty bpftrace 0.17 '
          'program attached before the rounds: the first program of a tracepoint pays for the '
          'page walks after each syscall\'s TLB flush (this host runs PTI without PCID, '
          'bench/NOTES.md), 35-50 ns that fell on whichever tool was measured.\n'
          % (old, CALLS, CALLS, RUNS, '%.0f ns/call' % med(base), len(base)))
    rows = []
    floor = res[PROGRAMS[0][0]]

    def above(tool, ns):
        f = floor[tool]
        if isinstance(f, Failed) or not f or label == PROGRAMS[0][0]:
            return None
        return med(ns) - med([x[0] for x in f])

    for label, prog in PROGRAMS:
        r = res[label]
        for tool in ['aotrace'] + [name for name, _ in PEERS]:
            v = r[tool]
            cell0 = '%s: `%s`' % (label, prog) if tool == 'aotrace' else ''
            if isinstance(v, Failed) or not v:
                rows.append([cell0, tool, 'failed: %s' % (v.err if isinstance(v, Failed) else
                                                          'no run'), '', '', '', ''])
                continue
            ns = [x[0] for x in v]
            loop_t = [x[1] for x in v]
            info = v[-1][2]
            size = '%d insns, %d B JITed' % (info.get('bytes_xlated', 0) // 8,
                                             info.get('bytes_jited', 0))
            vs = []
            a = above(tool, ns)
            for peer, _ in PEERS if tool == 'aotrace' else []:
                p = r[peer]
                if isinstance(p, Failed) or not p:
                    continue
                pns = [x[0] for x in p]
                pa = above(peer, pns)
                # the aim: half of the first peer's cost above the floor
                first = peer == PEERS[0][0] and label != PROGRAMS[0][0]
                text = '%s: %s' % (peer, ratio(ns, pns))
                if a is not None and pa:
                    text += ', above the floor %s' % (verdict('%.2f' % (a / pa), 0.5) if first
                                                      else '%.2f' % (a / pa))
                vs.append(text)
            rows.append([cell0, tool, '%.0f ns (%.0f – %.0f)' % (med(ns), min(ns), max(ns)),
                         '–' if a is None else '%.0f ns' % a,
                         '%.0f ns (%.0f – %.0f)' % (med(loop_t), min(loop_t), max(loop_t)), size,
                         '<br>'.join(vs)])
    print(table(['Program', 'Tool', 'run_time_ns / run_cnt', 'Above the floor',
                 'getppid() loop, per call',
                 'Program size (xlated, JITed)', 'aotrace / each bpftrace'], rows))


if __name__ == '__main__':
    main()
