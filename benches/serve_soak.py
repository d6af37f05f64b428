#!/usr/bin/env python3
"""Soak of `nvq serve` under well-behaved and hostile clients (issue #27).

`nvq serve` on 8 simulated GPUs (benches/serve_soak.toml: GPU 7 hangs in
nvmlDeviceGetTemperature for an hour), with TLS and basic auth, on
127.0.0.1 only. For DURATION seconds (default 600):

- SCRAPERS well-behaved scrapers (default 100), each on its own kept-alive
  TLS connection, scraping every SCRAPE_EVERY s (default 15) with
  Prometheus's headers (X-Prometheus-Scrape-Timeout-Seconds: TIMEOUT,
  default 10; Accept-Encoding: gzip) and the right password;
- hostile clients, each a bounded loop: 8 pipeliners (TLS, 400 pipelined
  GET /metrics, never read, hold 30 s, close), 4 scrapers with a 1e-9 s
  timeout, 4 with a 120 s timeout (they wait on the hung GPU), 4 sending
  wrong passwords, 2 sending garbage instead of a TLS handshake, and 20
  that connect and send nothing.

A good scrape is one of the well-behaved scrapers' that got, within its
TIMEOUT, an HTTP 200 with the memory series of all 7 healthy GPUs. Every 10 s
it samples the server's threads and RSS (/proc) and the kernel memory of
the server's sockets (ss -tm: receive and send queues' allocations).
It prints a Markdown report for benches/RESULTS.md.

Needs a dist build (cargo build --profile dist --workspace), openssl and ss
(iproute2). Python's standard library only. The password hash below is
bcrypt (cost 6) of "soak-pass", made once with Python's bcrypt package.
"""

import base64
import gzip
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD", "dist")  # "debug" to try the script itself
# BIN_DIR: a folder with nvq and libnvml_sim.so (a copy, so that a build
# running meanwhile cannot replace them under the soak).
BIN_DIR = os.environ.get("BIN_DIR", os.path.join(ROOT, "target", BUILD))
NVQ = os.path.join(BIN_DIR, "nvq")
SIM = os.path.join(BIN_DIR, "libnvml_sim.so")
SCENARIO = os.path.join(ROOT, "benches/serve_soak.toml")
PASSWORD_HASH = "$2b$06$J3acazrRnqFQcH74Z22Yp.3EGrRYrMBUGaHf8617y5gheKJUK7NWO"
GOOD_AUTH = "Basic " + base64.b64encode(b"prometheus:soak-pass").decode()
BAD_AUTH = "Basic " + base64.b64encode(b"prometheus:wrong").decode()
HEALTHY = [f'uuid="GPU-00000000-0000-4000-8000-{i:012x}"' for i in range(7)]

DURATION = float(os.environ.get("DURATION", "600"))
SCRAPERS = int(os.environ.get("SCRAPERS", "100"))
# Prometheus's usual scrape_interval and its default scrape_timeout.
SCRAPE_EVERY = float(os.environ.get("SCRAPE_EVERY", "15"))
TIMEOUT = float(os.environ.get("TIMEOUT", "10"))

stop = threading.Event()
lock = threading.Lock()
stats = {"good": 0, "complete": 0, "late": 0, "incomplete": 0, "failed": 0,
         "hostile_requests": 0, "evicted_or_closed": 0}


def count(key, n=1):
    with lock:
        stats[key] += n


def certificates(d):
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", "server.key", "-out", "server.crt", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
        cwd=d, check=True, capture_output=True)
    with open(os.path.join(d, "web.yml"), "w") as f:
        f.write(f"tls_server_config:\n  cert_file: {d}/server.crt\n  key_file: {d}/server.key\n"
                f"basic_auth_users:\n  prometheus: {PASSWORD_HASH}\n")


def tls_context(d):
    ctx = ssl.create_default_context(cafile=os.path.join(d, "server.crt"))
    ctx.check_hostname = False
    return ctx


def request(timeout_header, auth, close=False):
    extra = "Connection: close\r\n" if close else ""
    return (f"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {auth}\r\n"
            f"X-Prometheus-Scrape-Timeout-Seconds: {timeout_header}\r\nAccept-Encoding: gzip\r\n"
            f"{extra}\r\n").encode()


def read_answer(f):
    """One HTTP/1.1 answer from a buffered socket file: (status, body)."""
    line = f.readline()
    if not line:
        raise ConnectionError("closed")
    status = int(line.split()[1])
    length, gz = 0, False
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.decode("latin-1").partition(":")
        k = k.strip().lower()
        if k == "content-length":
            length = int(v)
        elif k == "content-encoding" and "gzip" in v:
            gz = True
    body = f.read(length) if length else b""
    if gz:
        body = gzip.decompress(body)
    return status, body.decode("utf-8", "replace")


def connect(addr, ctx, timeout):
    raw = socket.create_connection(addr, timeout=timeout)
    return ctx.wrap_socket(raw, server_hostname="127.0.0.1")


def scraper(addr, ctx, k):
    time.sleep(SCRAPE_EVERY * k / max(SCRAPERS, 1))
    conn, f = None, None
    while not stop.is_set():
        t0 = time.monotonic()
        try:
            if conn is None:
                conn = connect(addr, ctx, TIMEOUT + 1)
                f = conn.makefile("rb")
            conn.settimeout(TIMEOUT + 1)
            conn.sendall(request(TIMEOUT, GOOD_AUTH))
            status, body = read_answer(f)
            took = time.monotonic() - t0
            count("good")
            if status != 200:
                count("failed")
            elif took > TIMEOUT:
                count("late")
            elif all(re.search(r"^nvq_memory_used_bytes\{[^}]*" + re.escape(u), body, re.M)
                     for u in HEALTHY):
                count("complete")
            else:
                count("incomplete")
        except (OSError, ValueError, IndexError, ConnectionError, EOFError):
            count("good")
            count("failed")
            if conn is not None:
                conn.close()
            conn, f = None, None
        left = SCRAPE_EVERY - (time.monotonic() - t0)
        if left > 0:
            stop.wait(left)
    if conn is not None:
        conn.close()


def pipeliner(addr, ctx):
    while not stop.is_set():
        try:
            s = connect(addr, ctx, 5)
            s.setblocking(False)
            data = request(10, GOOD_AUTH) * 400
            try:
                s.send(data)
            except (ssl.SSLWantWriteError, BlockingIOError):
                pass
            count("hostile_requests", 400)
            stop.wait(30)
            s.close()
        except OSError:
            count("evicted_or_closed")
            stop.wait(1)


def looping(addr, ctx, timeout_header, auth):
    while not stop.is_set():
        try:
            with connect(addr, ctx, 130) as s:
                s.sendall(request(timeout_header, auth, close=True))
                read_answer(s.makefile("rb"))
                count("hostile_requests")
        except (OSError, ValueError, IndexError, ConnectionError):
            count("evicted_or_closed")
            stop.wait(0.5)
        stop.wait(0.05)


def garbage(addr):
    while not stop.is_set():
        try:
            with socket.create_connection(addr, timeout=5) as s:
                s.sendall(os.urandom(512))
                try:
                    s.recv(1024)
                except OSError:
                    pass
            count("hostile_requests")
        except OSError:
            count("evicted_or_closed")
        stop.wait(0.1)


def idler(addr):
    while not stop.is_set():
        try:
            with socket.create_connection(addr, timeout=30) as s:
                try:
                    s.recv(1)  # until the server closes it
                except OSError:
                    pass
        except OSError:
            count("evicted_or_closed")
        stop.wait(0.5)


def proc(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def socket_kib(port):
    """Kernel memory of the server's sockets: receive and send allocations."""
    out = subprocess.run(["ss", "-tnmH", "state", "all", f"( sport = :{port} )"],
                         capture_output=True, text=True).stdout
    total, conns = 0, 0
    for m in re.finditer(r"skmem:\(r(\d+),rb\d+,t(\d+),tb\d+,f\d+,w(\d+)", out):
        total += int(m.group(1)) + int(m.group(2)) + int(m.group(3))
        conns += 1
    return total // 1024, conns


def main():
    for path in (NVQ, SIM):
        if not os.path.exists(path):
            sys.exit(f"build first: cargo build --profile dist --workspace ({path} is missing)")
    d = tempfile.mkdtemp(prefix="nvq-soak-")
    certificates(d)
    env = dict(os.environ, NVML_SIM_SCENARIO=SCENARIO)
    env.pop("NVQ_NVML_LIB", None)
    log = open(os.path.join(d, "serve.log"), "w+")
    server = subprocess.Popen(
        [NVQ, "--nvml-lib", SIM, "serve", "--web.listen-address=127.0.0.1:0",
         f"--web.config.file={d}/web.yml"], env=env, stderr=log)
    try:
        addr = None
        for _ in range(200):
            log.seek(0)
            m = re.search(r"listening on https://([\d.]+):(\d+)/", log.read())
            if m:
                addr = (m.group(1), int(m.group(2)))
                break
            time.sleep(0.05)
        if addr is None:
            sys.exit("nvq serve did not start")
        ctx = tls_context(d)
        threads = [threading.Thread(target=scraper, args=(addr, ctx, k)) for k in range(SCRAPERS)]
        threads += [threading.Thread(target=pipeliner, args=(addr, ctx)) for _ in range(8)]
        threads += [threading.Thread(target=looping, args=(addr, ctx, "1e-9", GOOD_AUTH)) for _ in range(4)]
        threads += [threading.Thread(target=looping, args=(addr, ctx, "120", GOOD_AUTH)) for _ in range(4)]
        threads += [threading.Thread(target=looping, args=(addr, ctx, "2", BAD_AUTH)) for _ in range(4)]
        threads += [threading.Thread(target=garbage, args=(addr,)) for _ in range(2)]
        threads += [threading.Thread(target=idler, args=(addr,)) for _ in range(20)]
        for t in threads:
            t.daemon = True
            t.start()
        series = []
        t0 = time.monotonic()
        while True:
            elapsed = time.monotonic() - t0
            kib, conns = socket_kib(addr[1])
            with lock:
                done = dict(stats)
            series.append((elapsed, proc(server.pid, "Threads"), proc(server.pid, "VmRSS"), kib, conns,
                           done["good"], done["complete"]))
            if elapsed >= DURATION:
                break
            time.sleep(min(10, DURATION - elapsed))
        stop.set()
        for t in threads:
            t.join(timeout=5)
    finally:
        server.terminate()
        try:
            code = server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            code = "killed (did not stop within 10 s)"
    log.seek(0)
    lines = log.read().splitlines()
    good, complete = stats["good"], stats["complete"]
    share = 100.0 * complete / good if good else 0.0
    print(f"Soak: {DURATION:.0f} s, {SCRAPERS} well-behaved scrapers every {SCRAPE_EVERY:g} s "
          f"(timeout {TIMEOUT:g} s), 8 GPUs with GPU 7 hung, TLS + basic auth, 127.0.0.1.\n")
    print("| measure | value |")
    print("|---|---:|")
    print(f"| well-behaved scrapes | {good} |")
    print(f"| ... with every healthy GPU's series in time | {complete} ({share:.3f} %) |")
    print(f"| ... late (past {TIMEOUT:g} s) / incomplete / failed | {stats['late']} / {stats['incomplete']} / "
          f"{stats['failed']} |")
    print(f"| hostile requests sent | {stats['hostile_requests']} |")
    print(f"| hostile connections refused, evicted or cut | {stats['evicted_or_closed']} |")
    print(f"| threads: first / max / last | {series[0][1]} / {max(s[1] for s in series)} / {series[-1][1]} |")
    print(f"| RSS KiB: first / max / last | {series[0][2]} / {max(s[2] for s in series)} / {series[-1][2]} |")
    print(f"| socket KiB: max / last | {max(s[3] for s in series)} / {series[-1][3]} |")
    print(f"| log lines | {len(lines)} |")
    print(f"| exit after SIGTERM | {code} |")
    print("\n| t (s) | threads | RSS (KiB) | socket memory (KiB) | sockets | scrapes | complete |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    step = max(1, len(series) // 20)
    for s in series[::step] + ([series[-1]] if (len(series) - 1) % step else []):
        print(f"| {s[0]:.0f} | {s[1]} | {s[2]} | {s[3]} | {s[4]} | {s[5]} | {s[6]} |")


if __name__ == "__main__":
    main()
