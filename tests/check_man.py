#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that the man page documents every option `aotrace --help` prints (and the reverse),
and, for a page with a LANGUAGE section, every builtin and function of the table in
src/funcs.c (and the reverse).

    tests/check_man.py AOTRACE MANPAGE

Options are the -x and --long-name words of the help text; in the roff source a dash is
written \\- and font escapes (\\fB...\\fR) may surround it. The table is read from the source
tree the man page is in (MANPAGE/../../src/funcs.c): a row `[FN_X] = { "name", BUILTIN(...)`
is written bare (a builtin; `CALL` in its flags makes it a function too), `CALL(...)` is a
function, and `FUNC_NUMBERED` stands for name0, name1, ... The man page's Builtins subsection
must name each builtin, its Functions subsection each function as `name(`, and the names in
their .TP headings must be in the table.
"""
import os
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)')
ROW = re.compile(r'\[FN_\w+\]\s*=\s*\{\s*"(\w+)",\s*(BUILTIN|CALL)\(([^)]*)\)')


def options(text):
    return set(OPT.findall(text))


def func_table(path):
    """(builtins, functions, numbered) from the rows of src/funcs.c."""
    with open(path) as f:
        text = f.read()
    bare, call, numbered = set(), set(), set()
    for name, form, flags in ROW.findall(text):
        if form == 'BUILTIN':
            bare.add(name)
        if form == 'CALL' or 'FUNC_CALL' in flags:
            call.add(name)
        if 'FUNC_NUMBERED' in flags:
            numbered.add(name)
    return bare, call, numbered


def subsection(plain, title):
    m = re.search(r'^\.SS %s$(.*?)^\.S[SH] ' % title, plain, re.M | re.S)
    return m.group(1) if m else ''


def headings(section):
    """The lines after each .TP, without their font macro."""
    lines = section.split('\n')
    return [re.sub(r'^\.B[IR]? ?', '', lines[i + 1])
            for i in range(len(lines) - 1) if lines[i] == '.TP']


def check_funcs(table, plain):
    bare, call, numbered = func_table(table)
    if not bare or not call:
        print('%s: no rows found' % table)
        return 1
    builtins = subsection(plain, 'Builtins')
    functions = subsection(plain, 'Functions')
    rc = 0
    for name in sorted(bare):
        word = name + '0' if name in numbered else name
        if not re.search(r'\b%s\b' % word, builtins):
            print('builtin %s: in src/funcs.c but not in the man page' % word)
            rc = 1
    for name in sorted(call):
        if not re.search(r'\b%s\(' % name, functions):
            print('function %s(): in src/funcs.c but not in the man page' % name)
            rc = 1
    for line in headings(builtins):
        for word in re.findall(r'[a-z_][a-z_0-9]*', re.sub(r'"[^"]*"', '', line)):
            base = re.sub(r'([0-9]+|N)$', '', word)
            if word not in bare and not (base in numbered and base != word):
                print('builtin %s: in the man page but not in src/funcs.c' % word)
                rc = 1
    for line in headings(functions):
        for name in re.findall(r'\b([a-z_][a-z_0-9]*)\(', line):
            if name not in call:
                print('function %s(): in the man page but not in src/funcs.c' % name)
                rc = 1
    if rc == 0:
        print('%d builtins and %d functions documented' % (len(bare), len(call)))
    return rc


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    aotrace, manpage = sys.argv[1:]
    r = subprocess.run([aotrace, '--help'], capture_output=True, text=True)
    if r.returncode != 0:
        print('aotrace --help exited %d' % r.returncode)
        return 1
    helpopts = options(r.stdout)
    if not helpopts:
        print('aotrace --help lists no options')
        return 1
    with open(manpage) as f:
        roff = f.read()
    # Undo the roff escapes that matter here: \- (a dash), \fB/\fI/\fR/\fP (fonts), \& (nothing).
    plain = re.sub(r'\\f[BIRP]|\\&', '', roff).replace('\\-', '-')
    manopts = options(plain)
    rc = 0
    for o in sorted(helpopts - manopts):
        print('%s: in --help but not in the man page' % o)
        rc = 1
    # Options in the OPTIONS section of the man page that --help no longer shows.
    m = re.search(r'^\.SH OPTIONS$(.*?)^\.SH ', plain, re.M | re.S)
    if m:
        for o in sorted(options(m.group(1)) - helpopts):
            print('%s: in the man page OPTIONS but not in --help' % o)
            rc = 1
    if rc == 0:
        print('%d options documented' % len(helpopts))
    if re.search(r'^\.SH LANGUAGE$', plain, re.M):
        root = os.path.dirname(os.path.dirname(os.path.abspath(manpage)))
        rc |= check_funcs(os.path.join(root, 'src', 'funcs.c'), plain)
    return rc


if __name__ == '__main__':
    sys.exit(main())
