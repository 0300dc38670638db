#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side by side: run a bpftrace script under aotrace and under bpftrace at the same time, with
the same workload, and compare the shape of what each prints.

    compare.py [--secs 3] [--jobs 2] [--kind host|kprobe|all] [--keep DIR] SCRIPT...

SCRIPT is a path or a bare name looked up in the bpftrace package (bashreadline, opensnoop.bt).
Both tools start together; once both have printed their first line (or after a start-up
grace), a workload runs for --secs seconds, then both get SIGINT and their END output is
collected. The comparison:

  header  the lines the script's BEGIN printf()s print (counted from the source), digits
          replaced by N, must be identical;
  data    every other line printed once the workload has started (before it, one tool may
          already see the other starting up) is reduced to a shape: a map line keeps its map
          name and the kind of each key (N for a number, W for anything else), a histogram
          bar becomes |@|, and in other lines each number becomes N and each run of words W;
          consecutive equal shapes collapse. The sets of shapes must be equal, except that a shape both tools
          print only when some event happens is tolerated on one side when that side printed
          fewer than 3 such lines (an event the other tool just missed). "Lost N events"
          lines (either tool's buffer overran on a busy machine) are counted and shown, not
          compared; so are the lines bpftrace tears (in a script that prints a line with
          several printf()s, pieces of two CPUs' lines interleave in bpftrace's output, not
          in aotrace's): shapes only bpftrace printed there.

One line per script: MATCH, DIFFER (followed by the differing shapes) or SKIP (bpftrace itself
fails here, with its error and whether aotrace fails too; the script's probes are not for this
--kind; or, with --peer-root, it has uprobes beyond libc's). Exit status 1 when
a script differs, 0 otherwise. Standard library only (it runs in the VM matrix too).
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

WORKLOAD = r'''
end=$((SECONDS + {secs}))
i=0
while [ $SECONDS -lt $end ]; do
    ls -l /etc > /dev/null; cat /etc/hostname > /dev/null; stat /etc/passwd > /dev/null
    dd if=/dev/zero of=wl.dat bs=64k count=4 conv=fsync status=none; sync; rm -f wl.dat
    kill -0 $$; getent hosts localhost > /dev/null
    {peer}
    setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null
    python3 -c 'import ctypes; t = (ctypes.c_long * 2)(0, 1000000); ctypes.CDLL(None).syscall(35, t, None)' 2> /dev/null
    printf 'echo hi\nexit\n' | script -qc 'bash --norc -i' /dev/null > /dev/null 2>&1
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); c = socket.create_connection(s.getsockname()); a = s.accept()[0]; a.sendall(b"x" * 100); c.recv(100); c.close(); a.close(); s.close()' 2> /dev/null
    sleep 0.1 & wait
    i=$((i + 1))
done
'''

# The binary or library of each uprobe and USDT probe.
UPROBE_RE = re.compile(r'^\s*(?:uprobe|uretprobe|usdt|u|ur|U):([^:\s]+)', re.M)
KPROBE_RE = re.compile(r'^\s*(kprobe|kretprobe|kfunc|kretfunc|fentry|fexit|k|kr|f|fr):',
               re.M)
NUM_RE = r'[-+]?(0x[0-9a-fA-F]+|\d+(\.\d+)?[KMGTPE]?%?)'
MAP_RE = re.compile(r'^(@\w*)(\[(.*)\])?:(.*)$')
LOST_RE = re.compile(r'^Lost (\d+) events$')
LOST = 'lost events'  # the data key counting them (not a shape)


def find_script(name):
    if os.path.exists(name):
        return name
    base = name if name.endswith('.bt') else name + '.bt'
    for d in ('/usr/sbin', '/usr/share/bpftrace/tools', '/usr/share/bpftrace/tools/old'):
        if os.path.exists(os.path.join(d, base)):
            return os.path.join(d, base)
    try:
        out = subprocess.run(['dpkg', '-L', 'bpftrace'], capture_output=True, text=True).stdout
    except OSError:
        out = ''
    for line in out.splitlines():
        if line.endswith('/' + base):
            return line
    return None


def strip_comments(src):
    src = re.sub(r'/\*.*?\*/', '', src, flags=re.S)
    return re.sub(r'//[^\n]*', '', src)


def prints_in_pieces(src):
    """Whether a probe other than BEGIN and END (which run alone) prints a line with several
    printf() calls (a format that does not end the line)."""
    src = strip_comments(src)
    while True:
        m = re.search(r'(^|\n)\s*(BEGIN|begin|END|end)\s*\{', src)
        if not m:
            break
        depth, i = 1, m.end()
        while i < len(src) and depth:
            depth += {'{': 1, '}': -1}.get(src[i], 0)
            i += 1
        src = src[:m.start()] + src[i:]
    return any(not f.endswith('\\n')
               for f in re.findall(r'printf\s*\(\s*"((?:[^"\\]|\\.)*)"', src))


def begin_lines(src):
    """How many lines the BEGIN probe's printf()s print: the newlines of their formats."""
    src = strip_comments(src)
    m = re.search(r'(^|\n)\s*(BEGIN|begin)\s*\{', src)
    if not m:
        return 0
    depth, i = 1, m.end()
    while i < len(src) and depth:
        depth += {'{': 1, '}': -1}.get(src[i], 0)
        i += 1
    body = src[m.end():i]
    n = 0
    for fmt in re.findall(r'printf\s*\(\s*"((?:[^"\\]|\\.)*)"', body):
        n += fmt.count('\\n')
    return n


def shape_word(tok):
    return 'N' if re.fullmatch(NUM_RE, tok) else 'W'


def shape(line):
    """The shape of a data line (see the module comment)."""
    line = re.sub(r'\|[@ ]*\|', '|@|', line.rstrip())
    m = MAP_RE.match(line)
    if m and not line.startswith('@ '):
        keys = ''
        if m.group(2) is not None:
            keys = '[' + ', '.join(shape_word(k.strip()) for k in m.group(3).split(', ')) + ']'
        value = m.group(4).strip()
        return '%s%s: %s' % (m.group(1), keys, shape(value) if value else '')
    out = []
    for tok in re.split(r'(\s+|[\[\](),|]|: )', line):
        if not tok:
            continue
        if tok.isspace():
            tok = ' '
        elif tok not in '[](),|' and tok != ': ':
            tok = shape_word(tok)
        if tok == 'W' and len(out) >= 2 and out[-1] == ' ' and out[-2] == 'W':
            out.pop()
            continue
        out.append(tok)
    return ''.join(out).strip()


def split_output(text, nheader, skip=0):
    """The header (the first nheader lines) and the data shapes; data lines start after the
    first skip characters of text (what was printed before the workload began)."""
    lines = [l for l in text.splitlines() if not re.match(r'^Attaching \d+ probes?\.\.\.$', l)]
    header = [re.sub(r'\d', 'N', l.rstrip()) for l in lines[:nheader]]
    before = [l for l in text[:skip].splitlines()
              if not re.match(r'^Attaching \d+ probes?\.\.\.$', l)]
    data = {}
    last = None
    for l in lines[max(nheader, len(before)):]:
        if not l.strip():
            continue
        m = LOST_RE.match(l)
        if m:
            data[LOST] = data.get(LOST, 0) + int(m.group(1))
            continue
        s = shape(l)
        data[s] = data.get(s, 0) + (0 if s == last else 1)
        last = s
    return header, data


def wait_first_lines(paths, procs, limit):
    """Wait until each tool has printed a line past "Attaching" or has ended, or limit seconds
    have passed. A tool that failed at once does not cut the other one's start short: when
    both fail (a kernel symbol this host lacks), each says so in its own words."""
    end = time.time() + limit
    while time.time() < end:
        ready = 0
        for path, proc in zip(paths, procs):
            with open(path, errors='replace') as f:
                text = f.read()
            if proc.poll() is not None or [l for l in text.splitlines()
                                           if not l.startswith('Attaching')]:
                ready += 1
        if ready == len(paths):
            return
        time.sleep(0.1)


def run_pair(args, path, workdir):
    src = open(path, errors='replace').read()
    name = os.path.basename(path)
    d = os.path.join(workdir, name)
    os.makedirs(d, exist_ok=True)
    # Both run a copy in their working directory: a peer in a chroot (tests/peers) sees the
    # caller's working directory, not the host's path of the script (its own tools among them).
    shutil.copyfile(path, os.path.join(d, name))
    procs = {}
    outs = {}
    for tool, cmd in (('aotrace', args.aotrace), ('bpftrace', args.bpftrace)):
        outs[tool] = os.path.join(d, tool + '.out')
        procs[tool] = subprocess.Popen(
            [cmd, name], cwd=d, stdout=open(outs[tool], 'w'),
            stderr=open(os.path.join(d, tool + '.err'), 'w'), start_new_session=True)
    t0 = time.time()
    wait_first_lines(list(outs.values()), list(procs.values()), args.start)
    time.sleep(0.5)
    # What each tool printed before the workload (the other tool starting up, seen by the
    # one that was ready first) is left out of the comparison: only the header counts.
    skips = {tool: len(open(outs[tool], errors='replace').read()) for tool in outs}
    # when a tool has already given up (bpftrace: skipped; aotrace: reported), no workload
    if all(p.poll() is None for p in procs.values()):
        with open(os.path.join(d, 'workload.sh'), 'w') as f:
            # The peer's uprobes on libc see the chroot's libc: a lookup there too (below).
            peer = ('chroot %s getent hosts localhost > /dev/null 2>&1' % shlex.quote(
                args.peer_root) if args.peer_root else '')
            f.write(WORKLOAD.format(secs=int(args.secs + 0.999), peer=peer))
        subprocess.run(['bash', 'workload.sh'], cwd=d, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    for p in procs.values():
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    for p in procs.values():
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    res = {}
    for tool in procs:
        with open(outs[tool], errors='replace') as f:
            out = f.read()
        with open(os.path.join(d, tool + '.err'), errors='replace') as f:
            err = f.read()
        res[tool] = (procs[tool].returncode, out, err)
    res['secs'] = time.time() - t0
    res['skip'] = skips
    return name, src, res


def first_error(err):
    for l in err.splitlines():
        if 'ERROR' in l or 'error' in l:
            if 'RLIMIT_MEMLOCK' not in l:
                return l.strip()
    return err.strip().splitlines()[-1] if err.strip() else 'no output'


def compare(name, src, res):
    nheader = begin_lines(src)
    b_rc, b_out, b_err = res['bpftrace']
    a_rc, a_out, a_err = res['aotrace']
    b_lines = [l for l in b_out.splitlines() if not l.startswith('Attaching')]
    if not b_lines and (b_rc not in (0, -signal.SIGINT) or 'ERROR' in b_err):
        why = 'bpftrace fails here: ' + first_error(b_err)
        if a_rc not in (0, -signal.SIGINT):
            why += '; so does aotrace: ' + first_error(a_err)
        return 'SKIP', [why]
    if a_rc == 1 and not a_out.strip() and re.search(r'has no function matching', a_err):
        # bpftrace 0.17 attaches nothing for a uprobe whose function is missing, silently
        return 'REFUSED', ['aotrace names what is missing: ' + first_error(a_err)]
    a_head, a_data = split_output(a_out, nheader, res['skip']['aotrace'])
    b_head, b_data = split_output(b_out, nheader, res['skip']['bpftrace'])
    report = []
    lost = (a_data.pop(LOST, 0), b_data.pop(LOST, 0))
    if a_rc not in (0, -signal.SIGINT):
        report.append('aotrace exit %s: %s' % (a_rc, first_error(a_err)))
    if a_head != b_head:
        report.append('header differs:')
        report += ['  aotrace:  ' + l for l in a_head]
        report += ['  bpftrace: ' + l for l in b_head]
    # bpftrace writes each printf() as its record comes out of the ring all CPUs share, so the
    # pieces of lines that two CPUs print at once interleave ("1094   qemu-system-x86    90
    # 0 1094   qemu-system-x86    93   0 /work/main/lib" from opensnoop's three printf()s under
    # 0.27.1); aotrace holds a CPU's unfinished line until it ends (runtime/output.c). In a
    # script that prints lines in pieces, shapes only bpftrace printed are such torn lines:
    # counted and shown, not compared (what only aotrace prints still is).
    torn = 0
    for s in sorted(set(a_data) | set(b_data)):
        na, nb = a_data.get(s, 0), b_data.get(s, 0)
        if na and nb:
            continue
        if na + nb < 3:
            continue  # a rare event one tool saw and the other missed
        if nb and a_data and prints_in_pieces(src):
            torn += nb
            continue
        report.append('  only %s (%d lines): %s' % ('aotrace' if na else 'bpftrace',
                                 na or nb, s))
    if not a_data and b_data:
        report.append('  aotrace printed no data lines, bpftrace %d' % sum(b_data.values()))
    status = 'DIFFER' if report else 'MATCH'
    return status, report + ['  (%d/%d data shapes, %d header lines, %.1f s%s%s)' %
                             (len(a_data), len(b_data), nheader, res['secs'],
                              ', lost events %d/%d' % lost if any(lost) else '',
                              ', torn lines of bpftrace %d' % torn if torn else '')]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--aotrace', default=os.environ.get('AOTRACE', 'aotrace'))
    ap.add_argument('--bpftrace', default=os.environ.get('BPFTRACE', 'bpftrace'))
    ap.add_argument('--secs', type=float, default=3)
    ap.add_argument('--start', type=float, default=20, help='seconds allowed to start')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--kind', choices=('host', 'kprobe', 'all'), default='all')
    ap.add_argument('--keep', help='keep the outputs in this folder')
    ap.add_argument('--peer-root', metavar='DIR',
                    help='bpftrace runs chrooted in DIR (tests/peers): it probes the libraries '
                    'and binaries of DIR, which the workload does not run, so scripts with '
                    'uprobes or USDT are skipped, but for those on libc alone: the workload '
                    'also looks a name up in DIR, where only bpftrace sees it')
    ap.add_argument('scripts', nargs='+')
    args = ap.parse_args()
    args.bpftrace = os.path.abspath(shutil.which(args.bpftrace) or args.bpftrace)
    args.aotrace = os.path.abspath(shutil.which(args.aotrace) or args.aotrace)

    workdir = args.keep or tempfile.mkdtemp(prefix='aot-corpus-')
    todo, lines = [], []
    for s in args.scripts:
        path = find_script(s)
        if not path:
            lines.append(('SKIP', s, ['not found']))
            continue
        kp = bool(KPROBE_RE.search(strip_comments(open(path, errors='replace').read())))
        up = set(UPROBE_RE.findall(strip_comments(open(path, errors='replace').read())))
        if args.peer_root and up - {'libc'}:
            lines.append(('SKIP', os.path.basename(path),
                          ['uprobes on %s: bpftrace probes the files of its chroot %s, which '
                           'no process of the workload maps' % (', '.join(sorted(up)),
                                                                args.peer_root)]))
        elif args.kind == 'host' and kp:
            lines.append(('SKIP', os.path.basename(path), ['kprobe/kfunc probes: VM matrix']))
        elif args.kind == 'kprobe' and not kp:
            lines.append(('SKIP', os.path.basename(path), ['no kprobes: host test']))
        else:
            todo.append(path)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for name, src, res in ex.map(lambda p: run_pair(args, p, workdir), todo):
            status, report = compare(name, src, res)
            lines.append((status, name, report))
    failed = 0
    for status, name, report in lines:
        one = status in ('SKIP', 'REFUSED')
        print('%s %s%s' % (status, name, ' (%s)' % report[0] if one else ''))
        if not one:
            for r in report:
                print(r)
        failed += status == 'DIFFER'
    # The differences again, last: a runner that shows only the output's tail shows them.
    for status, name, report in lines:
        if status == 'DIFFER':
            print('DIFFER %s' % name)
            for r in report:
                print(r)
    counts = {s: sum(1 for l in lines if l[0] == s) for s in ('MATCH', 'DIFFER', 'REFUSED', 'SKIP')}
    print('%d match, %d differ, %d refused, %d skipped' %
          (counts['MATCH'], counts['DIFFER'], counts['REFUSED'], counts['SKIP']))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
