#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The end-to-end test runner: runs aotrace on the kernel it is running on.

    tests/run.py [options] AOTRACE          run tests/runtime/*.test and tests/errors/*.bt
    tests/run.py --meson-log LOG --json F   turn meson's testlog.json into a summary file
    tests/run.py --combine F...             print the combined summary of several runs

It prints one line per test (PASS/FAIL/SKIP name (reason)), the output tail of each failure,
the number of skips per reason, and last `N passed, N failed[, N skipped]`. Exit status: 0 when
nothing failed, 1 otherwise. Standard library only: it also runs inside the VM kernel matrix.

A test that fails is run once more, alone, after all the others (--retries, default 1): timing
under a loaded machine or an emulated CPU is not ours to control. Its first failure is printed
(RETRY name (reason) and the output tail); when the second run passes, the test counts as passed
and is listed as FLAKY, with the first failure's reason, above the summary line and in the JSON
summary (and so in the combined total), never hidden. A test failing both times is a failure.

Test files (tests/runtime/*.test) hold one or more tests; a NAME line starts each one. Lines
are `KEY value`; blank lines and lines starting with '#' are ignored.

    NAME hello printf          the test's name (unique in the file)
    PROG BEGIN { ... }         the program, run as `aotrace ARGS -e PROG PARAMS`; several PROG
                               lines join with newlines
    RUN shell command          instead of PROG: a bash command (with pipefail) run with
                               $AOTRACE, $BPFTOOL, $BPFTRACE (bpftrace 0.17, the host's),
                               $BPFTRACE_023 and $BPFTRACE_027 (the newer peers, see PEERS
                               below), $SRCDIR (the repository), $TESTDIR (the .test file's
                               folder) and $AOTRACE_TIMEOUT_SCALE (above 1 under emulation) in
                               its environment and a fresh temporary folder as cwd; several
                               RUN lines form a script
    ARGS -q -f text            options placed before -e (shell-split)
    PARAMS 41 foo              positional parameters placed after the program (shell-split)
    EXPECT regex               must match (re.search) some line of stdout; may repeat
    EXPECT_NONE regex          must match no line of stdout; may repeat
    EXPECT_ERR regex           must match some line of stderr; may repeat
    EXPECT_ERR_NONE regex      must match no line of stderr; may repeat
    EXIT 0                     the expected exit status (default 0)
    TIMEOUT 10                 seconds before the test is killed and fails (default 10)
    INTERRUPT 2                send SIGINT after 2 seconds (the test then must end by itself)
    WORKLOAD shell command     runs in the background during the test (to make events happen),
                               killed when the test ends
    REQUIRES kprobe fentry     kernel features needed; the test is skipped when one is missing.
                               Each feature is probed by trying it (see FEATURES below).
                               Tools are features too: bpftool, bpftrace, clang, tcpdump, and each peer
                               (REQUIRES bpftrace-0.27)
    UNLESS kprobe              the opposite: skip when the kernel has the feature (for tests of
                               what aotrace says when it is missing)
    AFTER_NO_LEAKS             the test runs alone, and afterwards no BPF program, map or link,
                               no pin and no kprobe/uprobe event may remain that was not there
                               before
    SKIP reason                skip this test unconditionally (say why)

Peers: bpftrace 0.17 is the host's package ($BPFTRACE). The newer releases are Debian's
bpftrace of another suite, each in a chroot that ./dev test makes (tests/peers/setup, from the
table tests/peers/peers.list): $BPFTRACE_023 names tests/peers/bpftrace-0.23 (trixie's 0.23.2),
$BPFTRACE_027 tests/peers/bpftrace-0.27 (sid's 0.27.1), wrappers that run that bpftrace as the
host's would be run (see tests/peers/bpftrace-peer for what differs: paths it opens itself are
the chroot's). The feature of the same name runs `NAME --version` through the wrapper; a test
that REQUIRES it is skipped, with the wrapper's reason, where the chroot is missing.

Parts: --part fallback runs only the files of FALLBACK_FILES, those whose results depend on
the kernel's features (the VM matrix runs it on its older kernels); --part kernel adds every
other test that REQUIRES a kernel feature the host may lack (KERNEL_FEATURES: kprobes, fentry,
multi links, sessions, ...). The tests left out count as skipped, with the reason, and are
listed per file.

Error cases (tests/errors/CASE.bt): `aotrace --emit-elf /dev/null tests/errors/CASE.bt` runs
in the repository (so diagnostics name the file `tests/errors/CASE.bt`); it must exit 1 and its
stderr must equal tests/errors/CASE.err byte for byte.
"""

import argparse
import concurrent.futures
import ctypes
import errno
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

SRCDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TAIL_LINES = 15
# Lines of each failure repeated in the recap at the end of a run (and in its JSON summary).
RECAP_LINES = 12


# ---- kernel feature probes ----
#
# Each probe tries the operation itself: it loads and attaches a minimal BPF program with
# bpftool (inside a private mount namespace with its own bpffs, so nothing is left pinned),
# or opens the perf event, or creates the map. Version numbers are never consulted.


def libc_path():
    with open('/proc/self/maps') as f:
        for line in f:
            path = line.split()[-1]
            if re.search(r'/libc\.so', path):
                return path
    return '/lib/x86_64-linux-gnu/libc.so.6'


def kernel_func():
    """A kernel function every kernel we test has, for kprobe/fentry probes."""
    return 'vfs_read'


# feature -> (ELF section of the probe program, what a failure means)
BPF_FEATURES = {
    'tracepoint': ('tracepoint/syscalls/sys_enter_getpid', 'tracepoint attach failed'),
    'rawtracepoint': ('raw_tracepoint/sys_enter', 'raw tracepoint attach failed'),
    'tp_btf': ('tp_btf/sched_switch', 'tp_btf attach failed'),
    'kprobe': ('kprobe/' + kernel_func(), 'no kprobes'),
    'kretprobe': ('kretprobe/' + kernel_func(), 'no kretprobes'),
    'kprobe_multi': ('kprobe.multi/' + kernel_func(), 'no kprobe_multi links'),
    'fentry': ('fentry/' + kernel_func(), 'fentry programs refused'),
    'fexit': ('fexit/' + kernel_func(), 'fexit programs refused'),
    'uprobe': ('uprobe/{libc}:getpid', 'no uprobes'),
    'uprobe_multi': ('uprobe.multi/{libc}:getpid', 'no uprobe_multi links'),
    'iter': ('iter/task', 'no task iterators'),
}

PROBE_C = '''char _license[] __attribute__((section("license"), used)) = "GPL";
__attribute__((section("%s"), used)) int aot_feature_probe(void *ctx) { return 0; }
'''


class Env:
    """What the tests need to find: tools, paths, and the feature probe cache."""

    def __init__(self, aotrace, cache_dir):
        self.aotrace = aotrace
        self.bpftool = shutil.which('bpftool') or '/usr/sbin/bpftool'
        self.bpftrace = shutil.which('bpftrace') or '/usr/bin/bpftrace'
        self.clang = shutil.which('clang-19') or shutil.which('clang') or '/usr/bin/clang-19'
        self.prometheus = shutil.which('prometheus') or '/usr/bin/prometheus'
        self.tcpdump = shutil.which('tcpdump') or '/usr/bin/tcpdump'
        self.cache_dir = cache_dir
        self.features = {}
        self.lock = threading.Lock()
        self.feature_locks = {}


def probe_obj(env, feature, section, src=None):
    """Compiles (once, cached by content) the probe program for feature (PROBE_C in section,
    or the C source src); returns its path."""
    src = src or PROBE_C % section
    key = '%s-%s.o' % (feature, hashlib.sha1(src.encode()).hexdigest()[:10])
    for d in (env.cache_dir, os.path.join(tempfile.gettempdir(), 'aotrace-feature-probes')):
        if d and os.path.exists(os.path.join(d, key)):
            return os.path.join(d, key), None
    last = None
    for d in (env.cache_dir, os.path.join(tempfile.gettempdir(), 'aotrace-feature-probes')):
        if not d:
            continue
        try:
            os.makedirs(d, exist_ok=True)
            fd, tmp_c = tempfile.mkstemp(suffix='.c', dir=d)
        except OSError as e:
            last = str(e)
            continue
        with os.fdopen(fd, 'w') as f:
            f.write(src)
        out = os.path.join(d, key)
        r = subprocess.run([env.clang, '-g', '-O2', '-target', 'bpf', '-mcpu=v3', '-c', tmp_c,
                            '-o', out + '.tmp'], capture_output=True, text=True)
        os.unlink(tmp_c)
        if r.returncode != 0:
            return None, 'cannot compile the %s probe: %s' % (feature, r.stderr.strip())
        os.rename(out + '.tmp', out)
        return out, None
    return None, 'no writable folder for feature probes (%s)' % last


def probe_bpf(env, feature):
    section, missing = BPF_FEATURES[feature]
    obj, err = probe_obj(env, feature, section.format(libc=libc_path()))
    if not obj:
        return err
    # A private bpffs in a private mount namespace: the pins vanish with the namespace.
    script = ('mount -t bpf bpf /sys/fs/bpf && "$0" prog loadall "$1" /sys/fs/bpf/p autoattach'
              ' && ls /sys/fs/bpf/p')
    try:
        r = subprocess.run(['unshare', '-m', 'sh', '-c', script, env.bpftool, obj],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return '%s (probe timed out)' % missing
    # bpftool pins the program instead of a link when it cannot attach, and fails to pin
    # ("failed to pin all programs") where the kernel has no bpf_link for perf events (5.10):
    # then bpftrace, which attaches without links there, says whether the feature is there.
    if r.returncode != 0 or 'falling back to pinning' in r.stderr:
        return probe_bpftrace(env, feature, missing)
    return None


# feature -> a bpftrace probe that attaches what the feature's program does
BPFTRACE_PROBES = {
    'tracepoint': 'tracepoint:syscalls:sys_enter_getpid',
    'rawtracepoint': 'rawtracepoint:sys_enter',
    'kprobe': 'kprobe:' + kernel_func(),
    'kretprobe': 'kretprobe:' + kernel_func(),
    'uprobe': 'uprobe:{libc}:getpid',
}


def probe_bpftrace(env, feature, missing):
    """The feature tried with bpftrace: attached, then BEGIN exits (an independent tool)."""
    if feature not in BPFTRACE_PROBES or not os.access(env.bpftrace, os.X_OK):
        return missing
    prog = '%s { } BEGIN { exit(); }' % BPFTRACE_PROBES[feature].format(libc=libc_path())
    try:
        r = subprocess.run([env.bpftrace, '-e', prog], capture_output=True, text=True,
                           timeout=60 * getattr(env, 'timeout_scale', 1))
    except subprocess.TimeoutExpired:
        return '%s (bpftrace timed out)' % missing
    return None if r.returncode == 0 else missing


PERF_EVENT_OPEN = 298  # x86_64


def perf_open(libc, fields, size, pid, cpu):
    """perf_event_open() of a struct perf_event_attr packed from FIELDS, SIZE bytes long;
    returns the descriptor or -errno."""
    buf = ctypes.create_string_buffer(struct.pack('<IIQQQQQIIQQ'[:len(fields) + 1],
                                                  *fields).ljust(size, b'\0'), size)
    fd = libc.syscall(PERF_EVENT_OPEN, buf, pid, cpu, -1, 0)
    return fd if fd >= 0 else -ctypes.get_errno()


def perf_count(fd):
    """The event's count (read_format 0: one u64)."""
    return struct.unpack('<Q', os.read(fd, 8))[0]


def probe_perf(type_, config, missing, counts=False):
    """Opens a perf event (CPU 0, all tasks) of the given type and config. With COUNTS, also
    counts this process for a moment of busy work: some hypervisors accept hardware events
    that never count."""
    def probe(env):
        libc = ctypes.CDLL(None, use_errno=True)
        # struct perf_event_attr, PERF_ATTR_SIZE_VER0 (64 bytes): type, size, config,
        # sample_period, sample_type, read_format, flags (disabled = bit 0).
        fd = perf_open(libc, (type_, 64, config, 1000000, 0, 0, 1), 64, -1, 0)
        if fd < 0:
            return '%s (%s)' % (missing, os.strerror(-fd))
        os.close(fd)
        if not counts:
            return None
        fd = perf_open(libc, (type_, 64, config, 0, 0, 0, 0), 64, 0, -1)
        if fd < 0:
            return '%s for a process (%s)' % (missing, os.strerror(-fd))
        try:
            sum(range(200000))
            n = perf_count(fd)
        finally:
            os.close(fd)
        return None if n else '%s: the counter opens but never counts' % missing
    return probe


def probe_watchpoint(env):
    """A hardware write breakpoint on a variable of this process (PERF_TYPE_BREAKPOINT),
    which must fire when the variable is written: some hypervisors accept breakpoints that
    never fire."""
    libc = ctypes.CDLL(None, use_errno=True)
    var = ctypes.c_long(0)
    # struct perf_event_attr up to bp_len (PERF_ATTR_SIZE_VER1, 72 bytes): type, size, config,
    # sample_period, sample_type, read_format, flags (enabled), wakeup_events, bp_type
    # (HW_BREAKPOINT_W), bp_addr, bp_len.
    fd = perf_open(libc, (5, 72, 0, 1, 0, 0, 0, 0, 2, ctypes.addressof(var), 8), 72, 0, -1)
    if fd < 0:
        return 'no hardware breakpoints (%s)' % os.strerror(-fd)
    try:
        for i in range(10):
            var.value = i + 1
        n = perf_count(fd)
    finally:
        os.close(fd)
    return None if n else 'hardware breakpoints attach but never fire'


def probe_watchpoint_attach(env):
    """A hardware write breakpoint on a variable of this process opens (whether it fires or
    not: unwatch() is seen in the links it leaves)."""
    libc = ctypes.CDLL(None, use_errno=True)
    var = ctypes.c_long(0)
    fd = perf_open(libc, (5, 72, 0, 1, 0, 0, 0, 0, 2, ctypes.addressof(var), 8), 72, 0, -1)
    if fd < 0:
        return 'no hardware breakpoints (%s)' % os.strerror(-fd)
    os.close(fd)
    return None


def probe_session(attach_type, name, since):
    """Loads a kprobe program of a session attach type (56 kprobe, 57 uprobe) and links it as
    the runtime would: kprobe sessions to vfs_read; uprobe sessions to "/", which a kernel with
    them refuses with EBADF (no file to probe) and one without with EINVAL."""
    def probe(env):
        libc = ctypes.CDLL(None, use_errno=True)
        insns = struct.pack('<BBhi', 0xb7, 0, 0, 0) + struct.pack('<BBhi', 0x95, 0, 0, 0)
        code = ctypes.create_string_buffer(insns, len(insns))
        lic = ctypes.create_string_buffer(b'GPL')
        # BPF_PROG_LOAD: prog_type (KPROBE), insn_cnt, insns, license; expected_attach_type at 68.
        attr = bytearray(struct.pack('<IIQQ', 2, 2, ctypes.addressof(code),
                                     ctypes.addressof(lic)).ljust(128, b'\0'))
        struct.pack_into('<I', attr, 68, attach_type)
        buf = ctypes.create_string_buffer(bytes(attr), len(attr))
        prog = libc.syscall(321, 5, buf, len(attr))  # bpf(BPF_PROG_LOAD)
        if prog < 0:
            return 'no %s (Linux %s): %s' % (name, since, os.strerror(ctypes.get_errno()))
        sym = ctypes.create_string_buffer(kernel_func().encode())
        syms = (ctypes.c_void_p * 1)(ctypes.addressof(sym))
        path = ctypes.create_string_buffer(b'/')
        offsets = (ctypes.c_ulong * 1)(0)
        # BPF_LINK_CREATE: prog_fd, target_fd, attach_type, flags, then kprobe_multi
        # {flags, cnt, syms, addrs, cookies} or uprobe_multi {path, offsets, ..., cnt at 48}.
        link = bytearray(128)
        struct.pack_into('<III', link, 0, prog, 0, attach_type)
        if attach_type == 56:
            struct.pack_into('<IIQ', link, 16, 0, 1, ctypes.addressof(syms))
        else:
            struct.pack_into('<QQ', link, 16, ctypes.addressof(path), ctypes.addressof(offsets))
            struct.pack_into('<I', link, 48, 1)
        lbuf = ctypes.create_string_buffer(bytes(link), len(link))
        fd = libc.syscall(321, 28, lbuf, len(link))  # bpf(BPF_LINK_CREATE)
        err = ctypes.get_errno()
        if fd >= 0:
            os.close(fd)
        os.close(prog)
        if fd >= 0 or (attach_type == 57 and err == errno.EBADF):
            return None
        return 'no %s links (Linux %s): %s' % (name, since, os.strerror(err))
    return probe


def probe_helper(helper, name, since):
    """Loads a kprobe program that calls a BPF helper: the verifier refuses helpers the kernel
    lacks (bpf_get_func_ip, bpf_get_attach_cookie: 5.15)."""
    def probe(env):
        libc = ctypes.CDLL(None, use_errno=True)
        # call HELPER; r0 = 0; exit
        insns = struct.pack('<BBhi', 0x85, 0, 0, helper) + struct.pack('<BBhi', 0xb7, 0, 0, 0) + \
            struct.pack('<BBhi', 0x95, 0, 0, 0)
        code = ctypes.create_string_buffer(insns, len(insns))
        lic = ctypes.create_string_buffer(b'GPL')
        # union bpf_attr for BPF_PROG_LOAD: prog_type (KPROBE), insn_cnt, insns, license.
        attr = struct.pack('<IIQQ', 2, 3, ctypes.addressof(code),
                           ctypes.addressof(lic)).ljust(128, b'\0')
        buf = ctypes.create_string_buffer(attr, len(attr))
        fd = libc.syscall(321, 5, buf, len(attr))  # bpf(BPF_PROG_LOAD, attr, size), x86_64
        if fd < 0:
            return 'no %s (Linux %s): %s' % (name, since, os.strerror(ctypes.get_errno()))
        os.close(fd)
        return None
    return probe


def probe_write_user(env):
    """Loads a kprobe program that calls bpf_probe_write_user: a kernel under lockdown (this
    CI host's) offers that helper to no program type."""
    libc = ctypes.CDLL(None, use_errno=True)
    ins = [(0x7a, 10, -8, 0),   # *(u64 *)(r10 - 8) = 0
           (0xb7, 1, 0, 0),     # r1 = 0
           (0xbf, 0xa2, 0, 0),  # r2 = r10
           (0x07, 2, 0, -8),    # r2 += -8
           (0xb7, 3, 0, 8),     # r3 = 8
           (0x85, 0, 0, 36),    # call bpf_probe_write_user
           (0xb7, 0, 0, 0),     # r0 = 0
           (0x95, 0, 0, 0)]     # exit
    insns = b''.join(struct.pack('<BBhi', op, regs, off, imm) for op, regs, off, imm in ins)
    code = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b'GPL')
    attr = struct.pack('<IIQQ', 2, len(ins), ctypes.addressof(code),
                       ctypes.addressof(lic)).ljust(128, b'\0')
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = libc.syscall(321, 5, buf, len(attr))  # bpf(BPF_PROG_LOAD, attr, size), x86_64
    if fd < 0:
        return 'no bpf_probe_write_user (kernel lockdown?): %s' % os.strerror(ctypes.get_errno())
    os.close(fd)
    return None


def probe_perf_link(env):
    """A bpf_link for a perf event (BPF_LINK_CREATE, attach type BPF_PERF_EVENT: 5.15): without
    it libbpf attaches through the perf event's ioctl, and there is no link to pin or list."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = perf_open(libc, (1, 64, 0, 1000000, 0, 0, 1), 64, -1, 0)  # SW_CPU_CLOCK, disabled
    if fd < 0:
        return 'no software perf events (%s)' % os.strerror(-fd)
    insns = struct.pack('<BBhi', 0xb7, 0, 0, 0) + struct.pack('<BBhi', 0x95, 0, 0, 0)
    code = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b'GPL')
    # BPF_PROG_LOAD of a BPF_PROG_TYPE_PERF_EVENT program: r0 = 0; exit
    attr = struct.pack('<IIQQ', 7, 2, ctypes.addressof(code),
                       ctypes.addressof(lic)).ljust(128, b'\0')
    buf = ctypes.create_string_buffer(attr, len(attr))
    prog = libc.syscall(321, 5, buf, len(attr))
    if prog < 0:
        err = ctypes.get_errno()
        os.close(fd)
        return 'cannot load a perf event program: %s' % os.strerror(err)
    # BPF_LINK_CREATE: prog_fd, target_fd, attach_type BPF_PERF_EVENT (41), flags
    attr = struct.pack('<IIII', prog, fd, 41, 0).ljust(128, b'\0')
    buf = ctypes.create_string_buffer(attr, len(attr))
    link = libc.syscall(321, 28, buf, len(attr))
    err = ctypes.get_errno()
    for f in (link, prog, fd):
        if f >= 0:
            os.close(f)
    if link < 0:
        return 'no bpf_link for perf events (Linux 5.15): %s' % os.strerror(err)
    return None


def probe_tp_btf_names(env):
    """The names of a tp_btf tracepoint's arguments: aotrace reads them from the kernel's glue
    function __bpf_trace_NAME, which the BTF of some kernels (Debian's 5.10) does not hold."""
    try:
        r = subprocess.run([env.bpftool, 'btf', 'dump', 'file', '/sys/kernel/btf/vmlinux',
                            'format', 'raw'], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 'cannot read the kernel BTF: %s' % e
    if re.search(r"\] FUNC '__bpf_trace_sched_switch' ", r.stdout):
        return None
    return "the kernel's BTF has no __bpf_trace_sched_switch: tp_btf arguments have no names"


def probe_btf_9p(env):
    """A module's BTF: the 9p file system's, which the VM matrix's guests load for their root
    (kfunc probes on a module's functions read it)."""
    if os.path.exists('/sys/kernel/btf/9p'):
        return None
    return 'no BTF of module 9p (/sys/kernel/btf/9p)'


def probe_big_keys(env):
    """A hash map with keys of 1024 bytes (a string key of the default max_strlen): 5.10 takes
    keys of at most 512 (the BPF stack's size)."""
    libc = ctypes.CDLL(None, use_errno=True)
    # BPF_MAP_CREATE: map_type HASH (1), key_size, value_size, max_entries
    attr = struct.pack('<IIII', 1, 1024, 8, 1).ljust(128, b'\0')
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = libc.syscall(321, 0, buf, len(attr))
    if fd < 0:
        return 'no hash map keys of 1024 bytes: %s' % os.strerror(ctypes.get_errno())
    os.close(fd)
    return None


def tracing_prog(env, attach_type, what, with_target):
    """A program returning 0 loaded as BPF_PROG_TYPE_TRACING of attach_type, for vfs_read
    (attach_btf_id at byte 108 of BPF_PROG_LOAD) where with_target: (fd, the function's BTF id,
    None), or (-1, None, the reason it is missing)."""
    r = subprocess.run([env.bpftool, 'btf', 'dump', 'file', '/sys/kernel/btf/vmlinux'],
                       capture_output=True, text=True)
    m = re.search(r"^\[(\d+)\] FUNC '%s'" % kernel_func(), r.stdout, re.M)
    if not m:
        return -1, None, 'no BTF id for %s (bpftool btf dump: %s)' % (kernel_func(),
                                                                      r.stderr.strip())
    libc = ctypes.CDLL(None, use_errno=True)
    insns = struct.pack('<BBhi', 0xb7, 0, 0, 0) + struct.pack('<BBhi', 0x95, 0, 0, 0)
    code = ctypes.create_string_buffer(insns, len(insns))
    lic = ctypes.create_string_buffer(b'GPL')
    # BPF_PROG_LOAD: prog_type TRACING (26), insn_cnt, insns, license; expected_attach_type at 68
    attr = bytearray(struct.pack('<IIQQ', 26, 2, ctypes.addressof(code),
                                 ctypes.addressof(lic)).ljust(128, b'\0'))
    struct.pack_into('<I', attr, 68, attach_type)
    if with_target:
        struct.pack_into('<I', attr, 108, int(m.group(1)))
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    prog = libc.syscall(321, 5, buf, len(attr))
    if prog < 0:
        return -1, None, 'no %s programs: %s' % (what, os.strerror(ctypes.get_errno()))
    return prog, int(m.group(1)), None


def tracing_link(prog, attr, what):
    """BPF_LINK_CREATE (28) with attr (prog_fd first) for a moment; None or why it failed."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(attr, len(attr))
    link = libc.syscall(321, 28, buf, len(attr))
    err = ctypes.get_errno()
    os.close(prog)
    if link < 0:
        return 'no %s links: %s' % (what, os.strerror(err))
    os.close(link)
    return None


def probe_tracing_multi(env):
    """Tracing multi links (Linux 7.2 UAPI: BPF_TRACE_FENTRY_MULTI = 59, link_create's
    tracing_multi { ids, cookies, cnt } at byte 16): a program returning 0 loaded as fentry
    multi without an attach BTF id, linked to vfs_read for a moment."""
    prog, btf_id, why = tracing_prog(env, 59, 'fentry multi', False)
    if prog < 0:
        return why
    ids = (ctypes.c_uint32 * 1)(btf_id)
    cookies = (ctypes.c_uint64 * 1)(1)
    # prog_fd, target_fd, attach_type, flags, ids, cookies, cnt
    return tracing_link(prog, struct.pack('<IIIIQQI', prog, 0, 59, 0, ctypes.addressof(ids),
                                          ctypes.addressof(cookies), 1).ljust(128, b'\0'),
                        'tracing multi')


def probe_fsession(env):
    """fsession links (Linux 7.2 UAPI: BPF_TRACE_FSESSION = 58): a program returning 0 loaded as
    fsession for vfs_read, linked for a moment as libbpf links a trampoline (prog_fd,
    target_fd, attach_type)."""
    prog, _, why = tracing_prog(env, 58, 'fsession (Linux 7.2)', True)
    if prog < 0:
        return why
    return tracing_link(prog, struct.pack('<III', prog, 0, 58).ljust(128, b'\0'),
                        'fsession (Linux 7.2)')


def probe_sdt(env):
    """What the USDT tests build their traced program with: a C compiler and <sys/sdt.h>."""
    r = subprocess.run(['cc', '-x', 'c', '-fsyntax-only', '-'], input='#include <sys/sdt.h>\n',
                       capture_output=True, text=True)
    return None if r.returncode == 0 else 'no cc or <sys/sdt.h> (install systemtap-sdt-dev)'


def probe_ringbuf(env):
    script = ('mount -t bpf bpf /sys/fs/bpf && "$0" map create /sys/fs/bpf/rb type ringbuf'
              ' key 0 value 0 entries 4096 name aot_probe_rb')
    r = subprocess.run(['unshare', '-m', 'sh', '-c', script, env.bpftool],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else 'no ring buffer maps'


def probe_btf(env):
    try:
        with open('/sys/kernel/btf/vmlinux', 'rb') as f:
            f.read(8)
    except OSError as e:
        return 'no kernel BTF (%s)' % e.strerror
    return None


def probe_kstack(env):
    """Kernel stacks from a tracepoint, asked of bpftrace (an independent tool): some kernels
    under emulation return no frames at all, to any tool."""
    if not os.access(env.bpftrace, os.X_OK):
        return 'bpftrace not installed (needed to probe kernel stacks)'
    p = subprocess.Popen([env.bpftrace, '-e', 'tracepoint:syscalls:sys_enter_getppid '
                          '{ @[kstack] = count(); exit(); }'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for _ in range(200):
            os.getppid()
            time.sleep(0.05)
            if p.poll() is not None:
                break
        out = p.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        p.kill()
        return 'no kernel stacks (probe timed out)'
    return None if re.search(r'^\s+\w+\+\d+$', out, re.M) else 'the kernel returns empty stacks'


def probe_unemulated(env):
    """Tests that only mean something on a real CPU: side-by-side runs of two tools over a few
    seconds of workload (under an emulated CPU, as in the VM matrix, which scales timeouts, the
    windows are too uneven to compare) and valgrind runs (user-space checks, the same on every
    kernel, minutes each under emulation)."""
    scale = getattr(env, 'timeout_scale', 1)
    return None if scale <= 1 else 'skipped under emulation (timeouts x%g)' % scale


SOCKET_COOKIE_C = '''char _license[] __attribute__((section("license"), used)) = "GPL";
static unsigned long long (*get_socket_cookie)(void *sk) = (void *)46;
__attribute__((section("fentry/sock_def_readable"), used))
int aot_feature_probe(unsigned long long *ctx) { get_socket_cookie((void *)ctx[0]); return 0; }
'''


def probe_socket_cookie(env):
    """bpf_get_socket_cookie on a struct sock pointer in an fentry program (Linux 5.12 on): a
    program that calls it on sock_def_readable's sk, loaded."""
    obj, err = probe_obj(env, 'socket_cookie', None, SOCKET_COOKIE_C)
    if not obj:
        return err
    script = 'mount -t bpf bpf /sys/fs/bpf && "$0" prog loadall "$1" /sys/fs/bpf/p'
    try:
        r = subprocess.run(['unshare', '-m', 'sh', '-c', script, env.bpftool, obj],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 'no socket_cookie in fentry programs (probe timed out)'
    return None if r.returncode == 0 else 'no socket_cookie in fentry programs'


def probe_kallsyms_data(env):
    """A kernel whose /proc/kallsyms lists data symbols (CONFIG_KALLSYMS_ALL): the addresses of
    per-CPU variables, which percpu_kaddr() needs."""
    try:
        with open('/proc/kallsyms') as f:
            for line in f:
                if line.endswith(' process_counts\n') and not line.startswith('0000000000000000'):
                    return None
    except OSError as e:
        return 'cannot read /proc/kallsyms: %s' % e
    return '/proc/kallsyms lists no data symbols (no CONFIG_KALLSYMS_ALL)'


PEERS_DIR = os.path.join(SRCDIR, 'tests', 'peers')


def read_peers():
    """The peers of tests/peers/peers.list: NAME -> (environment variable, wrapper path)."""
    peers = {}
    with open(os.path.join(PEERS_DIR, 'peers.list')) as f:
        for line in f:
            words = line.split()
            if words and words[0] == 'peer':
                name = words[1]
                var = 'BPFTRACE_' + re.sub(r'\W', '', name.split('-', 1)[-1])
                peers[name] = (var, os.path.join(PEERS_DIR, name))
    return peers


PEERS = read_peers()


def probe_peer(name):
    """Runs the peer's --version through its wrapper, which says why when it cannot run."""
    def probe(env):
        path = PEERS[name][1]
        if not os.access(path, os.X_OK):
            return 'no wrapper %s' % os.path.relpath(path, SRCDIR)
        try:
            r = subprocess.run([path, '--version'], capture_output=True, text=True,
                               timeout=60 * getattr(env, 'timeout_scale', 1))
        except subprocess.TimeoutExpired:
            return '%s --version timed out' % name
        if r.returncode == 0 and r.stdout.startswith('bpftrace v'):
            return None
        why = (r.stderr.strip().splitlines() or ['exit status %d' % r.returncode])[-1]
        return why.replace('%s: ' % name, '', 1)
    return probe


def probe_tool(name, attr):
    def probe(env):
        path = getattr(env, attr)
        return None if os.access(path, os.X_OK) else '%s not installed' % name
    return probe


# feature -> function(env) returning None when present, or the reason it is missing
FEATURES = {f: (lambda env, f=f: probe_bpf(env, f)) for f in BPF_FEATURES}
FEATURES.update({
    'perf_event': probe_perf(1, 0, 'no software perf events'),       # SW_CPU_CLOCK
    'hardware': probe_perf(0, 0, 'no hardware perf events', True),   # HW_CPU_CYCLES
    'ringbuf': probe_ringbuf,
    'watchpoint': probe_watchpoint,
    'watchpoint_attach': probe_watchpoint_attach,
    'sdt': probe_sdt,
    'tracing_multi': probe_tracing_multi,
    'fsession': probe_fsession,
    'perf_link': probe_perf_link,
    'big_keys': probe_big_keys,
    'btf_9p': probe_btf_9p,
    'tp_btf_names': probe_tp_btf_names,
    'func_ip': probe_helper(173, 'bpf_get_func_ip', '5.15'),
    'attach_cookie': probe_helper(174, 'bpf_get_attach_cookie', '5.15'),
    'kprobe_session': probe_session(56, 'kprobe session', '6.10'),
    'uprobe_session': probe_session(57, 'uprobe session', '6.13'),
    'btf': probe_btf,
    'kstack': probe_kstack,
    'unemulated': probe_unemulated,
    'kallsyms_data': probe_kallsyms_data,
    'socket_cookie': probe_socket_cookie,
    'write_user': probe_write_user,
    'bpftool': probe_tool('bpftool', 'bpftool'),
    'bpftrace': probe_tool('bpftrace', 'bpftrace'),
    'clang': probe_tool('clang', 'clang'),
    **{name: probe_peer(name) for name in PEERS},
    'prometheus': probe_tool('prometheus', 'prometheus'),
    'tcpdump': probe_tool('tcpdump', 'tcpdump'),
    'smp': lambda env: None if len(os.sched_getaffinity(0)) >= 2 else 'one CPU only',
})
FEATURES['kfunc'] = FEATURES['fentry']
FEATURES['profile'] = FEATURES['perf_event']


def feature_missing(env, feature):
    """Probes a feature once per run; returns None or the reason it is missing."""
    with env.lock:
        if feature in env.features:
            return env.features[feature]
        lk = env.feature_locks.setdefault(feature, threading.Lock())
    with lk:
        with env.lock:
            if feature in env.features:
                return env.features[feature]
        try:
            reason = FEATURES[feature](env)
        except Exception as e:  # a broken probe must show, not pass
            reason = 'probe for %s failed: %s' % (feature, e)
        if reason:
            reason = '%s: %s' % (feature, reason)
        with env.lock:
            env.features[feature] = reason
        return reason


# ---- test files ----

class Test:
    def __init__(self, path, name):
        self.path = path
        self.name = name
        self.prog = None
        self.run = None
        self.args = []
        self.params = []
        self.expect = []
        self.expect_none = []
        self.expect_err = []
        self.expect_err_none = []
        self.exit = 0
        self.timeout = 10.0
        self.interrupt = None
        self.workload = None
        self.requires = []
        self.unless = []
        self.no_leaks = False
        self.skip = None
        self.error_case = None  # (bt path, err path)

    @property
    def label(self):
        if self.error_case:
            return self.name
        base = os.path.basename(self.path).rsplit('.', 1)[0]
        return '%s: %s' % (base, self.name) if self.name != base else base


class ParseError(Exception):
    pass


def parse_test_file(path):
    tests = []
    t = None
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            key, _, val = line.partition(' ')
            val = val.strip()
            where = '%s:%d' % (path, lineno)
            if key == 'NAME':
                t = Test(path, val)
                tests.append(t)
                continue
            if t is None:
                raise ParseError('%s: %s before any NAME' % (where, key))
            try:
                if key == 'PROG':
                    t.prog = val if t.prog is None else t.prog + '\n' + val
                elif key == 'RUN':
                    t.run = val if t.run is None else t.run + '\n' + val
                elif key == 'ARGS':
                    t.args += shlex.split(val)
                elif key == 'PARAMS':
                    t.params += shlex.split(val)
                elif key in ('EXPECT', 'EXPECT_NONE', 'EXPECT_ERR', 'EXPECT_ERR_NONE'):
                    getattr(t, key.lower()).append(re.compile(val))
                elif key == 'EXIT':
                    t.exit = int(val)
                elif key == 'TIMEOUT':
                    t.timeout = float(val)
                elif key == 'INTERRUPT':
                    t.interrupt = float(val)
                elif key == 'WORKLOAD':
                    t.workload = val
                elif key == 'REQUIRES':
                    for feat in val.split():
                        if feat not in FEATURES:
                            raise ParseError('unknown feature %r (known: %s)' %
                                             (feat, ' '.join(sorted(FEATURES))))
                        t.requires.append(feat)
                elif key == 'UNLESS':
                    for feat in val.split():
                        if feat not in FEATURES:
                            raise ParseError('unknown feature %r' % feat)
                        t.unless.append(feat)
                elif key == 'AFTER_NO_LEAKS':
                    t.no_leaks = True
                elif key == 'SKIP':
                    t.skip = val or 'skipped'
                else:
                    raise ParseError('unknown key %s' % key)
            except (ValueError, re.error) as e:
                raise ParseError('%s: %s' % (where, e))
            except ParseError as e:
                raise ParseError('%s: %s' % (where, e))
    for t in tests:
        if (t.prog is None) == (t.run is None):
            raise ParseError('%s: test %r needs exactly one of PROG and RUN' % (path, t.name))
    return tests


def error_cases(errdir):
    tests = []
    if not os.path.isdir(errdir):
        return tests
    for name in sorted(os.listdir(errdir)):
        if not name.endswith('.bt'):
            continue
        bt = os.path.join(errdir, name)
        t = Test(bt, 'errors/' + name[:-3])
        t.error_case = (bt, bt[:-3] + '.err')
        t.exit = 1
        tests.append(t)
    return tests


# ---- leak checks ----

def bpf_objects(env):
    """The set of live BPF objects, pins and trace events, as comparable strings."""
    objs = set()
    for kind in ('prog', 'map', 'link'):
        r = subprocess.run([env.bpftool, '-j', kind, 'show'], capture_output=True, text=True)
        try:
            for o in json.loads(r.stdout or '[]'):
                objs.add('%s %s %s' % (kind, o.get('id'), o.get('name', o.get('type', ''))))
        except ValueError:
            pass
    if os.path.ismount('/sys/fs/bpf'):
        for dirpath, dirnames, filenames in os.walk('/sys/fs/bpf'):
            for n in dirnames + filenames:
                objs.add('pin ' + os.path.join(dirpath, n))
    for ev in ('kprobe_events', 'uprobe_events'):
        try:
            with open('/sys/kernel/tracing/' + ev) as f:
                objs.update('%s %s' % (ev, line.strip()) for line in f if line.strip())
        except OSError:
            pass
    return objs


def leaks_after(env, before):
    """New objects that remain; the kernel frees programs after an RCU grace period, so wait."""
    deadline = time.monotonic() + 5
    while True:
        new = bpf_objects(env) - before
        if not new or time.monotonic() > deadline:
            return sorted(new)
        time.sleep(0.2)


# ---- running ----

class Result:
    def __init__(self, test, status, reason='', tail=''):
        self.test, self.status, self.reason, self.tail = test, status, reason, tail


def tail(text, n=TAIL_LINES):
    lines = text.splitlines()
    return '\n'.join(lines[-n:])


def run_process(cmd, cwd, envvars, timeout, interrupt):
    """Runs cmd; returns (exit status or None on timeout, stdout, stderr)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=envvars, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         errors='replace', start_new_session=True)
    timed_out = False
    try:
        if interrupt is not None:
            try:
                out, err = p.communicate(timeout=interrupt)
                return p.returncode, out, err
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGINT)
                timeout = max(timeout - interrupt, 1)
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    return (None if timed_out else p.returncode), out, err


def check_lines(text, regexes, want, what):
    lines = text.splitlines()
    for rx in regexes:
        hit = any(rx.search(line) for line in lines)
        if hit != want:
            return '%s %s /%s/' % (what, 'has no line matching' if want else 'has a line matching',
                                    rx.pattern)
    return None


def run_test(env, t, scale):
    if t.skip:
        return Result(t, 'SKIP', t.skip)
    for feat in t.requires:
        reason = feature_missing(env, feat)
        if reason:
            return Result(t, 'SKIP', reason)
    for feat in t.unless:
        if not feature_missing(env, feat):
            return Result(t, 'SKIP', 'the kernel has %s' % feat)
    if t.error_case:
        return run_error_case(env, t, scale)

    before = bpf_objects(env) if t.no_leaks else None
    work = tempfile.mkdtemp(prefix='aotrace-test-')
    envvars = dict(os.environ, AOTRACE=env.aotrace, BPFTOOL=env.bpftool, BPFTRACE=env.bpftrace,
                   **{var: path for var, path in PEERS.values()},
                   AOTRACE_TIMEOUT_SCALE=str(scale),
                   SRCDIR=SRCDIR, TESTDIR=os.path.dirname(os.path.abspath(t.path)))
    wl = None
    try:
        if t.workload:
            wl = subprocess.Popen(t.workload, shell=True, executable='/bin/bash', cwd=work,
                                  env=envvars, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        if t.run is not None:
            cmd, shown = ['/bin/bash', '-o', 'pipefail', '-c', t.run], t.run
        else:
            cmd = [env.aotrace] + t.args + ['-e', t.prog] + t.params
            shown = ' '.join(shlex.quote(c) for c in cmd)
        interrupt = t.interrupt * scale if t.interrupt is not None else None
        start = time.monotonic()
        status, out, err = run_process(cmd, work, envvars, t.timeout * scale, interrupt)
        elapsed = time.monotonic() - start
    finally:
        if wl:
            try:
                os.killpg(wl.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            wl.wait()
        shutil.rmtree(work, ignore_errors=True)

    def fail(reason):
        text = '$ %s\n--- stdout (tail)\n%s\n--- stderr (tail)\n%s' % (shown, tail(out),
                                                                      tail(err))
        return Result(t, 'FAIL', reason, text)

    if status is None:
        return fail('timed out after %.0fs' % (t.timeout * scale))
    if status < 0:
        return fail('killed by signal %d' % -status)
    if status != t.exit:
        return fail('exit status %d, expected %d' % (status, t.exit))
    for regexes, text, want, what in ((t.expect, out, True, 'stdout'),
                                      (t.expect_none, out, False, 'stdout'),
                                      (t.expect_err, err, True, 'stderr'),
                                      (t.expect_err_none, err, False, 'stderr')):
        problem = check_lines(text, regexes, want, what)
        if problem:
            return fail(problem)
    if t.no_leaks:
        left = leaks_after(env, before)
        if left:
            return fail('left behind: ' + ', '.join(left[:8]))
    return Result(t, 'PASS', '%.1fs' % elapsed)


def run_error_case(env, t, scale):
    bt, errf = t.error_case
    if not os.path.exists(errf):
        return Result(t, 'FAIL', 'missing ' + os.path.relpath(errf, SRCDIR))
    with open(errf) as f:
        want = f.read()
    cmd = [env.aotrace, '--emit-elf', '/dev/null', os.path.relpath(bt, SRCDIR)]
    status, out, err = run_process(cmd, SRCDIR, None, 30 * scale, None)
    if status == t.exit and err == want:
        return Result(t, 'PASS')
    if status != t.exit:
        reason = 'exit status %s, expected %d' % (status, t.exit)
    else:
        reason = 'stderr differs from %s' % os.path.basename(errf)
    text = '$ aotrace %s\n--- expected stderr\n%s--- actual stderr\n%s' % (
        ' '.join(cmd[1:]), want, err)
    return Result(t, 'FAIL', reason, text)


# ---- summaries ----

def summary_line(passed, failed, skipped):
    s = '%d passed, %d failed' % (passed, failed)
    if skipped:
        s += ', %d skipped' % skipped
    return s


def add_failure(summary, label, reason, text=''):
    """Counts a failure and keeps its name, reason and last lines for the closing recap."""
    summary['failed'] += 1
    summary.setdefault('failures', []).append(
        {'test': label, 'reason': reason, 'tail': tail(text, RECAP_LINES) if text else ''})


def print_failures(failures, where=None):
    """The recap of failures printed last, so that the end of a long log says what failed."""
    for f in failures:
        print('FAILED %s%s%s' % ('[%s] ' % where if where else '', f['test'],
                                 ' (%s)' % f['reason'] if f['reason'] else ''))
        if f.get('tail'):
            print('    ' + f['tail'].replace('\n', '\n    '))


def print_flaky(flaky, where=None):
    """Tests that failed once and passed when run again alone: shown, not counted as failed."""
    for f in flaky:
        print('FLAKY %s%s (passed when run again; the first run: %s)' % (
            '[%s] ' % where if where else '', f['test'], f['reason']))


def print_summary(summary, label=None):
    print_flaky(summary.get('flaky', []))
    print_failures(summary.get('failures', []))
    for reason, n in sorted(summary['skipped'].items()):
        print('skipped %d: %s' % (n, reason))
    line = summary_line(summary['passed'], summary['failed'], sum(summary['skipped'].values()))
    print(('%s: %s' % (label, line)) if label else line)


def write_json(path, summary):
    if path:
        with open(path, 'w') as f:
            json.dump(summary, f)


# --part NAME: the tests a kernel of the VM matrix runs, and why the rest is left out. The
# fallback part is the files whose results depend on which kernel features exist: probe types,
# attach paths (multi links and their fallbacks, clones, cookies), the verifier, BTF and CO-RE.
# The kernel part adds every other test that needs a kernel feature. The rest (language, output,
# CLI, peers, compile errors) is the same on every kernel and runs in full on the host and on
# 6.12 (the full suite on 7.2 too made the matrix 80 minutes on 2 cores, issue 21).
FALLBACK_FILES = {'aot_bpftool', 'aot_core', 'basic', 'helper_errors', 'kfunc', 'kfunc_multi',
                  'kprobe', 'lastkey', 'maps', 'probe_order', 'probes', 'probes_types', 'probes_usdt',
                  'probes_watchpoint', 'ring', 'session', 'tracepoint', 'uprobe', 'verifier',
                  'wildcards_expand'}
# Features a kernel may lack that the host of CI lacks too (no kprobes, no fentry) or that came
# late: a test in another file that needs one depends on the kernel as much as the fallback part.
KERNEL_FEATURES = {'kprobe', 'kretprobe', 'fentry', 'fexit', 'kprobe_multi', 'kprobe_session',
                   'uprobe_multi', 'uprobe_session', 'tracing_multi', 'fsession',
                   'attach_cookie', 'perf_link', 'func_ip', 'watchpoint', 'watchpoint_attach',
                   'hardware', 'kstack', 'tp_btf', 'tp_btf_names', 'smp', 'iter', 'kallsyms_data',
                   'socket_cookie', 'write_user', 'btf_9p'}
PARTS = {
    'fallback': (lambda t: t.label.split(':', 1)[0] in FALLBACK_FILES,
                 'not kernel-dependent (language, output, CLI, peers, compile errors): '
                 'run in full on the host and 6.12'),
    'kernel': (lambda t: (t.label.split(':', 1)[0] in FALLBACK_FILES or
                          any(f in KERNEL_FEATURES for f in t.requires)),
               'needs no kernel feature beyond the host\'s (language, output, CLI, peers, '
               'compile errors): run in full on the host and 6.12'),
}


def select_part(tests, part, summary, show=True):
    """The tests of PART; the others are counted as skipped with the part's reason, and listed
    per file."""
    wanted, why = PARTS[part]
    kept, left = [], {}
    for t in tests:
        f = t.label.split(':', 1)[0]
        if wanted(t):
            kept.append(t)
        else:
            key = 'errors' if f.startswith('errors/') else f
            left[key] = left.get(key, 0) + 1
    n = sum(left.values())
    if n and show:
        print('PART %s: left out %d tests, %s (%s)' % (
            part, n, why, ', '.join('%s %d' % kv for kv in sorted(left.items()))))
        reason = 'part %s: %s' % (part, why)
        summary['skipped'][reason] = summary['skipped'].get(reason, 0) + n
    return kept


def new_summary(label):
    return {'label': label, 'passed': 0, 'failed': 0, 'skipped': {}}


def cmd_meson_log(args):
    """Counts meson's unit test results (testlog.json: one JSON object per line)."""
    s = new_summary(args.label or 'unit')
    try:
        with open(args.meson_log) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line).get('result', '')
                if r in ('OK', 'EXPECTEDFAIL'):
                    s['passed'] += 1
                elif r == 'SKIP':
                    s['skipped']['unit test skipped itself'] = \
                        s['skipped'].get('unit test skipped itself', 0) + 1
                else:
                    s['failed'] += 1
    except FileNotFoundError:
        pass
    write_json(args.json, s)
    return 0


def cmd_combine(files):
    total = new_summary('total')
    recap, flaky = [], []
    for path in files:
        try:
            with open(path) as f:
                s = json.load(f)
        except (OSError, ValueError) as e:
            print('%s: unreadable summary (%s)' % (path, e))
            total['failed'] += 1
            continue
        print('%s: %s' % (s['label'], summary_line(s['passed'], s['failed'],
                                                   sum(s['skipped'].values()))))
        total['passed'] += s['passed']
        total['failed'] += s['failed']
        recap += [(s['label'], f) for f in s.get('failures', [])]
        flaky += [(s['label'], f) for f in s.get('flaky', [])]
        if s['failed'] > len(s.get('failures', [])):
            recap.append((s['label'], {'test': '%d failure(s) reported above' %
                                       (s['failed'] - len(s.get('failures', []))),
                                       'reason': ''}))
        for reason, n in s['skipped'].items():
            key = '%s (%s)' % (reason, s['label']) if s['label'].startswith('vm') else reason
            total['skipped'][key] = total['skipped'].get(key, 0) + n
    for where, f in flaky:
        print_flaky([f], where)
    for where, f in recap:
        print_failures([f], where)
    print_summary(total)
    return 1 if total['failed'] else 0


def main():
    ap = argparse.ArgumentParser(description='aotrace end-to-end test runner')
    ap.add_argument('aotrace', nargs='?', help='the aotrace binary to test')
    ap.add_argument('-j', '--jobs', type=int, default=2, help='tests run at once (default 2)')
    ap.add_argument('-k', '--filter', help='only tests whose label matches this regex')
    ap.add_argument('--json', help='also write the summary as JSON to this file')
    ap.add_argument('--label', help='a name for this run in summaries')
    ap.add_argument('--timeout-scale', type=float,
                    default=float(os.environ.get('AOTRACE_TIMEOUT_SCALE', '1')),
                    help='multiply every TIMEOUT and INTERRUPT (slow emulated kernels)')
    ap.add_argument('--cache', help='folder for compiled feature probes')
    ap.add_argument('--meson-log', help="summarise meson's testlog.json instead of running")
    ap.add_argument('--combine', nargs='+', metavar='JSON', help='combine summary files')
    ap.add_argument('--features', action='store_true', help='print what each feature probe says')
    ap.add_argument('--retries', type=int, default=int(os.environ.get('AOTRACE_TEST_RETRIES', '1')),
                    help='run a failed test again alone up to this many times (default 1)')
    ap.add_argument('--list', action='store_true', help='print the label of every test')
    ap.add_argument('--part', choices=sorted(PARTS),
                    help='only the tests of this part (fallback: the files whose results depend on the '
                    'kernel; kernel: those and every test that needs a kernel feature)')
    ap.add_argument('--exclude-from', metavar='FILE',
                    help='leave out the tests whose labels are the lines of FILE')
    args = ap.parse_args()

    if args.combine:
        return cmd_combine(args.combine)
    if args.meson_log:
        return cmd_meson_log(args)
    if not args.aotrace:
        ap.error('the aotrace binary is required')

    aotrace = os.path.abspath(args.aotrace)
    cache = args.cache or os.path.join(os.path.dirname(aotrace), 'feature-probes')
    env = Env(aotrace, cache)
    env.timeout_scale = args.timeout_scale
    if args.features:
        for feat in sorted(FEATURES):
            print('%-14s %s' % (feat, feature_missing(env, feat) or 'yes'))
        return 0

    summary = new_summary(args.label or 'e2e')
    tests = []
    rtdir = os.path.join(SRCDIR, 'tests', 'runtime')
    for name in sorted(os.listdir(rtdir)):
        if name.endswith('.test'):
            try:
                tests += parse_test_file(os.path.join(rtdir, name))
            except ParseError as e:
                print('FAIL %s (%s)' % (name, e))
                add_failure(summary, name, str(e))
    tests += error_cases(os.path.join(SRCDIR, 'tests', 'errors'))
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, t.label)]
    if args.part:
        tests = select_part(tests, args.part, summary, not args.list)
    if args.exclude_from:
        with open(args.exclude_from) as f:
            done = set(f.read().splitlines())
        tests = [t for t in tests if t.label not in done]
    if args.list:
        for t in tests:
            print(t.label)
        return 0
    if not os.access(aotrace, os.X_OK):
        print('FAIL %s is not an executable' % aotrace)
        add_failure(summary, aotrace, 'not an executable')
        tests = []

    out_lock = threading.Lock()
    again = []  # (test, its first failure) to run once more alone

    def report(r, first=None):
        with out_lock:
            status = r.status
            if r.status == 'PASS':
                summary['passed'] += 1
                if first:
                    summary.setdefault('flaky', []).append(
                        {'test': r.test.label, 'reason': first.reason,
                         'tail': tail(first.tail, RECAP_LINES)})
            elif r.status == 'FAIL' and not first and args.retries > 0:
                again.append((r.test, r))
                status = 'RETRY'
            elif r.status == 'FAIL':
                reason = r.reason + (' (failed %d times)' % (args.retries + 1) if first else '')
                add_failure(summary, r.test.label, reason, r.tail)
            else:
                summary['skipped'][r.reason] = summary['skipped'].get(r.reason, 0) + 1
            print('%s %s%s' % (status, r.test.label, ' (%s)' % r.reason if r.reason else ''))
            if r.tail:
                print('    ' + r.tail.replace('\n', '\n    '))
            sys.stdout.flush()

    # Leak-checked tests run alone afterwards, so that no other test's objects look like leaks.
    shared = [t for t in tests if not t.no_leaks]
    alone = [t for t in tests if t.no_leaks]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for fut in [pool.submit(run_test, env, t, args.timeout_scale) for t in shared]:
            report(fut.result())
    for t in alone:
        report(run_test(env, t, args.timeout_scale))
    for t, first in again:
        for n in range(args.retries):
            r = run_test(env, t, args.timeout_scale)
            if r.status != 'FAIL' or n == args.retries - 1:
                break
        report(r, first)

    write_json(args.json, summary)
    print_summary(summary)
    return 1 if summary['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
