#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""HTTP sides of tests/runtime/metrics.test: the scraper, the bad clients, and Prometheus.

    metrics_http.py url ERRFILE              the URL aotrace printed ("Serving metrics on URL")
    metrics_http.py get URL [ACCEPT]         status, content type and body of one GET
    metrics_http.py bad URL                  each bad request and what it got, then a good one
    metrics_http.py hold URL N               N connections that never finish their request
    metrics_http.py scrape-forever URL       GET after GET, until killed
    metrics_http.py prometheus URL CMD...    Debian's prometheus scrapes URL while CMD runs;
                                             prints what its query API says

Standard library only. Every process it starts is stopped before it exits.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

# How long to wait for what must happen (a server up, a scrape after the workload). Waiting is
# not timing: nothing here is asserted about how long anything took.
PATIENCE = 30 * float(os.environ.get('AOTRACE_TIMEOUT_SCALE', '1'))


def wait_for(what, check, patience=PATIENCE):
    end = time.monotonic() + patience
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            raise SystemExit('gave up waiting for %s' % what)
        time.sleep(0.1)


def served_url(errfile):
    def check():
        try:
            with open(errfile) as f:
                for line in f:
                    if line.startswith('Serving metrics on '):
                        return line.split()[-1]
        except FileNotFoundError:
            pass
        return None
    return wait_for('"Serving metrics on" in %s' % errfile, check)


def get(url, accept=None, method='GET', data=None, headers=None):
    """(status, content type, body) of one request; HTTP errors are answers too."""
    req = urllib.request.Request(url, method=method, data=data, headers=dict(headers or {}))
    if accept:
        req.add_header('Accept', accept)
    try:
        with urllib.request.urlopen(req, timeout=PATIENCE) as r:
            return r.status, r.headers.get('Content-Type'), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get('Content-Type'), e.read().decode()


def host_port(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port


def status_of(sock):
    """The status code of the response on sock, or 'closed' if it closed without one."""
    sock.settimeout(PATIENCE)
    data = b''
    try:
        while b'\r\n' not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    line = data.split(b'\r\n')[0].split()
    return line[1].decode() if len(line) > 1 else 'closed'


def bad(url):
    """Each kind of bad request, and what it got; then a good request still works."""
    host, port = host_port(url)
    base = 'http://%s:%d' % (host, port)
    print('wrong path', get(base + '/nothing')[0])
    print('wrong method', get(url, method='POST', data=b'x=1')[0])
    print('oversized', get(url, headers={'X-Big': 'a' * 65536})[0])
    # Eight clients that never finish their request hold every slot; the next is told 503
    # at once, and the slow ones get 408 once their time is up.
    slow = []
    for _ in range(8):
        s = socket.create_connection((host, port))
        s.sendall(b'GET /metr')
        slow.append(s)
    # A ninth client is served (200) until the server has accepted all eight, which a loaded
    # machine may take a while to do; from then on it must be told 503.
    deadline = time.monotonic() + PATIENCE
    while True:
        extra = socket.create_connection((host, port))
        extra.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
        status = status_of(extra)
        if status != '200' or time.monotonic() > deadline:
            break
        extra.close()
        time.sleep(0.05)
    print('one too many', status)
    print('slow', sorted(set(status_of(s) for s in slow)))
    for s in slow + [extra]:
        s.close()
    print('then', get(url)[0])


def hold(url, n):
    host, port = host_port(url)
    held = [socket.create_connection((host, port)) for _ in range(n)]
    for s in held:
        s.sendall(b'GET /metrics HTTP/1.1\r\nX: ')
    time.sleep(PATIENCE)


def scrape_forever(url):
    while True:
        try:
            get(url)
        except OSError:
            time.sleep(0.01)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def prom_api(base, path, **params):
    q = urllib.parse.urlencode(params)
    with urllib.request.urlopen('%s/api/v1/%s?%s' % (base, path, q), timeout=PATIENCE) as r:
        doc = json.load(r)
    if doc.get('status') != 'success':
        raise SystemExit('prometheus: %s: %s' % (path, doc))
    return doc['data']


def prometheus(url, cmd):
    """Starts Debian's prometheus with a scrape config for url, runs cmd (the workload) once the
    target is up, waits for a scrape that began after cmd ended, and prints query results."""
    host, port = host_port(url)
    work = tempfile.mkdtemp(prefix='aotrace-prom-')
    procs = []
    try:
        with open(os.path.join(work, 'prometheus.yml'), 'w') as f:
            f.write('global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
                    'scrape_configs:\n  - job_name: aotrace\n    static_configs:\n'
                    '      - targets: ["%s:%d"]\n' % (host, port))
        pport = free_port()
        base = 'http://127.0.0.1:%d' % pport
        log = open(os.path.join(work, 'prometheus.log'), 'w')
        procs.append(subprocess.Popen(
            [shutil.which('prometheus') or '/usr/bin/prometheus',
             '--config.file=' + os.path.join(work, 'prometheus.yml'),
             '--storage.tsdb.path=' + os.path.join(work, 'data'),
             '--web.listen-address=127.0.0.1:%d' % pport, '--log.level=warn'],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL))

        def ready():
            if procs[0].poll() is not None:
                log.flush()
                raise SystemExit('prometheus exited: ' + open(log.name).read()[-2000:])
            try:
                return get(base + '/-/ready')[0] == 200
            except OSError:
                return False
        wait_for('prometheus to start', ready)

        def target():
            for t in prom_api(base, 'targets')['activeTargets']:
                if t['health'] == 'up':
                    return t
            return None
        wait_for('the first scrape', target)

        subprocess.run(cmd, check=True)
        done = time.time()

        # A scrape that began after the workload ended sees all of it.
        def scraped_after():
            r = prom_api(base, 'query', query='timestamp(aotrace_writes_total)')
            return r['result'] and float(r['result'][0]['value'][1]) > done
        wait_for('a scrape after the workload', scraped_after)

        for q in ('aotrace_writes_total', 'aotrace_bytes_total',
                  'histogram_quantile(0.5, aotrace_sizes_bucket)',
                  'histogram_quantile(0.1, aotrace_sizes_bucket)',
                  'aotrace_sizes_sum / aotrace_sizes_count', 'aotrace_sizes_count'):
            for r in prom_api(base, 'query', query=q)['result']:
                labels = ','.join('%s=%s' % kv for kv in sorted(r['metric'].items())
                                  if kv[0] not in ('instance', 'job'))
                print('%s {%s} %s' % (q, labels, r['value'][1]))
        # OpenMetrics was negotiated: the families are named without their samples' _total.
        meta = prom_api(base, 'metadata')
        for name in ('aotrace_writes', 'aotrace_bytes', 'aotrace_sizes'):
            print('type %s %s' % (name, meta.get(name, [{}])[0].get('type')))
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    what, arg = sys.argv[1], sys.argv[2]
    if what == 'url':
        print(served_url(arg))
    elif what == 'get':
        status, ctype, body = get(arg, sys.argv[3] if len(sys.argv) > 3 else None)
        print('status', status)
        print('type', ctype)
        sys.stdout.write(body)
    elif what == 'bad':
        bad(arg)
    elif what == 'hold':
        hold(arg, int(sys.argv[3]))
    elif what == 'scrape-forever':
        scrape_forever(arg)
    elif what == 'prometheus':
        prometheus(arg, sys.argv[3:])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
