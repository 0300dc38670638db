# SPDX-License-Identifier: GPL-2.0
"""Shared helpers of the row groups in bench/rows/: running a command N times (wall time, peak
RSS, time to the first line of stdout), medians with spread, ratios and Markdown tables.

A row group imports this module (bench/run puts bench/lib on PYTHONPATH) and prints its
Markdown section on stdout; progress goes to stderr through log().
"""
import atexit
import os
import shutil
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get('AOTRACE_BUILD', os.path.join(ROOT, 'build')))
RUNS = int(os.environ.get('BENCH_RUNS', '5'))
AOTRACE = os.path.join(BUILD, 'aotrace')
AOTRACE_RUN = os.path.join(BUILD, 'aotrace-run')
TMP = tempfile.mkdtemp(prefix='aotrace-bench-')
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class Failed(Exception):
    """A command of a case exited non-zero: .rc and .err (the last lines of its stderr)."""

    def __init__(self, cmd, rc, err):
        super().__init__('%s exited %d: %s' % (shown(cmd), rc, err))
        self.rc, self.err = rc, err


def first_error(stderr):
    """The first line of stderr that says something: an ERROR line if there is one, else the
    first that is not noise (bpftrace's RLIMIT_MEMLOCK notice, 0.27's notice that it cannot read
    available_filter_functions, which this host's tracefs lacks)."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip() and 'RLIMIT_MEMLOCK' not in l
             and 'available_filter_functions' not in l]
    for line in lines:
        if 'ERROR' in line or 'error:' in line:
            return line
    return lines[0] if lines else ''


def run_once(cmd, first_line=False, timeout=60, env=None):
    """Runs cmd under /usr/bin/time. Returns {'wall', 'cpu' (user + system seconds, which the
    load of a shared host disturbs less than wall time), 'rss' (peak, KiB), 'first' (seconds from
    just before the fork to the first line of stdout, when first_line)}; raises Failed."""
    tf = os.path.join(TMP, 'time.out')
    full = ['/usr/bin/time', '-f', '%M %U %S', '-o', tf] + cmd
    res = {}
    start = time.monotonic()
    p = subprocess.Popen(full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    if first_line:
        line = p.stdout.readline()
        res['first'] = time.monotonic() - start if line else None
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise Failed(cmd, -1, 'timed out after %d s' % timeout)
    res['wall'] = time.monotonic() - start
    err = err.decode(errors='replace')
    if p.returncode != 0:
        raise Failed(cmd, p.returncode, first_error(err))
    if first_line and res['first'] is None:
        raise Failed(cmd, 0, 'no line on stdout')
    with open(tf) as f:
        rss, user, system = f.read().split()[-3:]
    res['rss'] = int(rss)
    res['cpu'] = float(user) + float(system)
    return res


def bench(cases, runs=RUNS, **kw):
    """cases: {name: cmd}. One warm-up run of each, then `runs` rounds in which every case runs
    once (interleaved, so that a burst of load on the shared host hits all cases alike).
    Returns {name: [result of run_once] or Failed}."""
    out = {}
    for name, cmd in cases.items():
        try:
            run_once(cmd, **kw)
            out[name] = []
        except Failed as e:
            log('  %s: %s' % (name, e))
            out[name] = e
    for _ in range(runs):
        for name, cmd in cases.items():
            if isinstance(out[name], Failed):
                continue
            try:
                out[name].append(run_once(cmd, **kw))
            except Failed as e:
                log('  %s: %s' % (name, e))
                out[name] = e
    return out


def med(vals):
    return statistics.median(vals)


def col(results, key):
    return [r[key] for r in results]


def fmt_ms(s):
    if s is None:
        return '–'
    return '%.1f ms' % (s * 1e3) if s < 0.1 else '%.0f ms' % (s * 1e3)


def fmt_mib(kib):
    return '%.1f MiB' % (kib / 1024)


def spread(vals, fmt=fmt_ms):
    """'median (min – max)'."""
    return '%s (%s – %s)' % (fmt(med(vals)), fmt(min(vals)), fmt(max(vals)))


def ratio(a, b):
    """a / b of two medians, as text; '' if either is missing."""
    if not a or not b:
        return ''
    return '%.2f' % (med(a) / med(b))


def verdict(r, aim):
    """'0.31 (aim ≤ 0.25: behind)' for ratio text r against the aim."""
    if not r:
        return ''
    return '%s (aim ≤ %.2g: %s)' % (r, aim, 'met' if float(r) <= aim else '**behind**')


def shown(cmd):
    """A command as a reader would type it: build paths as $BUILD/…, shell-quoted."""
    out = []
    for c in cmd:
        if c.startswith(BUILD + '/'):
            c = '$BUILD/' + c[len(BUILD) + 1:]
        elif c.startswith(TMP + '/'):
            c = c[len(TMP) + 1:]
        out.append(c if c.startswith('$BUILD/') else shlex.quote(c))
    return ' '.join(out)


def table(headers, rows):
    lines = ['| ' + ' | '.join(headers) + ' |', '|' + '---|' * len(headers)]
    for r in rows:
        lines.append('| ' + ' | '.join(str(c).replace('|', '\\|') for c in r) + ' |')
    return '\n'.join(lines)


def have_aotrace_run():
    return os.access(AOTRACE_RUN, os.X_OK)


def ninja(target):
    """Builds target in the build directory (the helpers of the bench are meson targets)."""
    subprocess.run(['ninja', '-C', BUILD, target], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(BUILD, target)


def vm_rows(title, kernel, cpus, script, timeout, env=''):
    """Runs bench/lib/SCRIPT in a guest of tests/vm/run (KERNEL, CPUS vCPUs) with AOTRACE_BUILD
    and ENV set; returns (rows, values): the fields of each "ROW|..." line and the fields of
    each other "KEY|..." line the script printed. Prints "Not measured" under TITLE and exits 77
    when the guest gave no rows."""
    cmd = ('AOTRACE_BUILD=%s %s bash bench/lib/%s 2>&1 | sed "s/^/    /"' % (BUILD, env, script))
    try:
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'tests', 'vm', 'run'), '--build',
                            BUILD, '--kernel', kernel, '--cpus', str(cpus), '--timeout',
                            str(timeout - 10), '--cmd', cmd], capture_output=True, text=True,
                           timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        print('%s\nNot measured: %s\n' % (title, e))
        sys.exit(77)
    rows, values = [], {}
    for line in p.stdout.splitlines():
        if '|' not in line:
            continue
        key, rest = line.strip().split('|', 1)
        key = key.split()[-1] if key.split() else key
        if key == 'ROW':
            rows.append(rest.split('|'))
        elif key.isupper():
            values[key] = rest.split('|')
    if not rows:
        print('%s\nNot measured: the VM gave no rows.\n' % title)
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-2000:])
        sys.exit(77)
    return rows, values
