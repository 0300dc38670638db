#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that the man page documents every option `aotrace --help` prints (and the reverse).

    tests/check_man.py AOTRACE MANPAGE

Options are the -x and --long-name words of the help text; in the roff source a dash is
written \\- and font escapes (\\fB...\\fR) may surround it.
"""
import re
import subprocess
import sys

OPT = re.compile(r'(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)')


def options(text):
    return set(OPT.findall(text))


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
    return rc


if __name__ == '__main__':
    sys.exit(main())
