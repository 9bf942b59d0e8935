#!/usr/bin/env python3
"""Scaling of `toolrouter serve --http --stateless --json` behind nginx.

    python3 bench-mcp/scaling.py [--secs 20] [--conns 64] [--backends 1,2,4]

Not part of CI. Builds the release binary, then, in one run, measures the same
load (wrk, from Debian's packages: CONNS kept-alive connections POSTing a
`tools/call` of `calculate` for SECS seconds, every answer checked for "51"):

  direct      against one backend, no balancer;
  nginx-N     through deploy/nginx.conf, as written, over N backends sharing
              one state key (its upstream block gets N `server` lines).

Each line gives calls/s, p50 and p99 latency, errors (non-200 answers, wrong
answers, socket errors) and the CPU each part spent per call (user + system,
from /proc): the backends (summed), nginx (master and workers) and wrk. The
CPU per call is what extrapolates to more machines: a balancer core serves
1 / (nginx CPU per call) calls/s, a backend core 1 / (backend CPU per call).
Exits 1 if any call failed. Needs nginx and wrk (`apt-get install nginx-light
wrk`, or .ci/setup-nginx.sh for nginx).
"""

import argparse
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICKS = os.sysconf("SC_CLK_TCK")

WRK_SCRIPT = r"""
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"(12+5)*3"}}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrong = 0
end

function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"text":"51"', 1, true) then
    wrong = wrong + 1
  end
end

function done(summary, latency, requests)
  local wrong_total = 0
  for _, thread in ipairs(threads) do
    wrong_total = wrong_total + thread:get("wrong")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"wrong":%d,"socket_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    wrong_total, e.connect + e.read + e.write + e.timeout))
end
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """User + system CPU of a process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def wait_healthy(port, what):
    for _ in range(200):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(f"scaling.py: {what} did not come up on port {port}")


class Run:
    def __init__(self, binary, work):
        self.binary, self.work, self.procs = binary, work, []

    def backend(self, key):
        port = free_port()
        log = open(os.path.join(self.work, f"backend-{port}.log"), "w")
        proc = subprocess.Popen(
            [self.binary, "serve", "--http", f"127.0.0.1:{port}", "--stateless", "--json",
             "--state-key-file", key, "--workspace", self.work],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        self.procs.append(proc)
        wait_healthy(port, "a backend")
        return port, proc.pid

    def nginx(self, backends):
        front, spare = free_port(), free_port()
        conf = open(os.path.join(ROOT, "deploy", "nginx.conf")).read()
        servers = "".join(
            f"        server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;\n" for port in backends)
        conf, n = re.subn(
            r"(upstream toolrouter_stateless \{\n(?:.*\n)*?)((?:\s*server 127\.0\.0\.1:900\d .*\n)+)",
            lambda m: m.group(1) + servers, conf)
        assert n == 1, "deploy/nginx.conf's stateless upstream block was not found"
        conf = conf.replace("127.0.0.1:8443;", f"127.0.0.1:{front};")
        conf = conf.replace("127.0.0.1:8444;", f"127.0.0.1:{spare};")
        prefix = os.path.join(self.work, f"nginx-{front}")
        os.makedirs(os.path.join(prefix, "tmp"))
        with open(os.path.join(prefix, "nginx.conf"), "w") as f:
            f.write(conf)
        proc = subprocess.Popen(
            ["nginx", "-p", prefix, "-c", os.path.join(prefix, "nginx.conf"), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(prefix, "stderr.log"), "w"))
        self.procs.append(proc)
        wait_healthy(front, "nginx")
        return front, proc.pid

    def stop(self):
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs = []


def load(port, secs, conns, script, backend_pids, nginx_pid):
    """One wrk run; its figures and the CPU each part spent."""
    nginx_pids = [nginx_pid] + children(nginx_pid) if nginx_pid else []
    before = {pid: cpu_seconds(pid) for pid in backend_pids + nginx_pids}
    started = os.times()
    out = subprocess.run(
        ["wrk", "-t1", f"-c{conns}", f"-d{secs}s", "-s", script,
         f"http://127.0.0.1:{port}/mcp"],
        capture_output=True, text=True, check=True).stdout
    ended = os.times()
    after = {pid: cpu_seconds(pid) for pid in before}
    figures = json.loads(out.strip().splitlines()[-1])
    spent = lambda pids: sum(after[p] - before[p] for p in pids)
    figures["backend_cpu_s"] = spent(backend_pids)
    figures["nginx_cpu_s"] = spent(nginx_pids)
    figures["wrk_cpu_s"] = (ended.children_user - started.children_user
                            + ended.children_system - started.children_system)
    return figures


def line(name, backends, r):
    calls = max(r["requests"], 1)
    per_call = lambda s: f"{s / calls * 1e6:6.1f}"
    errors = r["wrong"] + r["socket_errors"]
    rate = r["requests"] / (r["duration_us"] / 1e6)
    return (errors, f"| {name:9} | {backends} | {rate:8,.0f} | {r['p50_us'] / 1000:5.2f} | "
            f"{r['p99_us'] / 1000:5.2f} | {errors} | {per_call(r['backend_cpu_s'])} | "
            f"{per_call(r['nginx_cpu_s'])} | {per_call(r['wrk_cpu_s'])} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--secs", type=int, default=20)
    ap.add_argument("--conns", type=int, default=64)
    ap.add_argument("--backends", default="1,2,4")
    args = ap.parse_args()
    for tool in ("nginx", "wrk"):
        if shutil.which(tool) is None:
            sys.exit(f"scaling.py: needs {tool} (apt-get install {tool})")
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "--release", "--bin", "toolrouter"], cwd=ROOT, check=True)
    binary = os.path.join(target, "release", "toolrouter")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()

    work = tempfile.mkdtemp(prefix="toolrouter-scaling-")
    os.chmod(work, 0o755)
    key = os.path.join(work, "state.key")
    with open(key, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    os.chmod(key, 0o600)
    script = os.path.join(work, "call.lua")
    with open(script, "w") as f:
        f.write(WRK_SCRIPT)

    print(f"scaling.py: {args.conns} connections, {args.secs} s per run, "
          f"{os.cpu_count()} CPUs, {version}")
    print("| run | backends | calls/s | p50 ms | p99 ms | errors | backend µs CPU/call "
          "| nginx µs CPU/call | wrk µs CPU/call |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = False
    run = Run(binary, work)
    try:
        port, pid = run.backend(key)
        errors, text = line("direct", 1, load(port, args.secs, args.conns, script, [pid], None))
        print(text, flush=True)
        failed |= errors > 0
        run.stop()
        for n in [int(b) for b in args.backends.split(",")]:
            started = [run.backend(key) for _ in range(n)]
            front, nginx_pid = run.nginx([port for port, _ in started])
            figures = load(front, args.secs, args.conns, script,
                           [pid for _, pid in started], nginx_pid)
            errors, text = line(f"nginx-{n}", n, figures)
            print(text, flush=True)
            failed |= errors > 0
            run.stop()
    finally:
        run.stop()
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
