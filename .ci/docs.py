#!/usr/bin/env python3
"""Runs the documentation's runnable blocks, so that every command they show works.

A fenced block is runnable when the line before its fence is a marker:

  <!-- check: run [expect="TEXT"] -->       a shell block, run with bash -euo pipefail
                                           from the repository root; it must exit 0
                                           and, with expect, print TEXT
  <!-- check: serve port=N [expect="TEXT"] -->
                                           a long-running command (a server), started
                                           in the background; the next blocks run once
                                           127.0.0.1:N accepts connections; it is
                                           stopped at the page's end, and with expect
                                           its output must then hold TEXT
  <!-- check: python [expect="TEXT"] -->    a Python block, run with the venv of the
                                           tests' SDKs ($TOOLROUTER_EXT_DIR/py)

Blocks run page by page, in order. `toolrouter` is the debug build (target/debug is put
first on PATH). A page that talks to 127.0.0.1:8000 without starting a server there
itself gets the loopback replay upstream (examples/replay_upstream.rs, replaying
examples/streams/weather-hermes.sse) for its whole run. Nothing leaves 127.0.0.1.

Usage: .ci/docs.py [PAGE.md ...]   (default: README.md and docs/*.md)
The last line is `docs: N passed, M failed`; the exit code is 0 only when none failed.
"""

import glob
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!--\s*check:\s*(run|serve|python)\b(.*?)-->\s*$")
OPTION = re.compile(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|(\S+))')
RUN_TIMEOUT = 120
SERVE_TIMEOUT = 300
REPLAY_PORT = 8000


def blocks(path):
    """The runnable blocks of a page: (line, kind, options, body)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    found = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            options = {}
            for o in OPTION.finditer(m.group(2)):
                value = o.group(2) if o.group(2) is not None else o.group(3)
                options[o.group(1)] = value.replace('\\"', '"')
            j = i + 2
            body = []
            while j < len(lines) and not lines[j].startswith("```"):
                body.append(lines[j])
                j += 1
            found.append((i + 2, m.group(1), options, "\n".join(body) + "\n"))
            i = j
        elif m:
            raise SystemExit(f"{path}:{i + 1}: a check marker must stand right before a fence")
        i += 1
    return found


def port_open(port):
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_port(port, proc, deadline):
    while time.time() < deadline:
        if port_open(port):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.1)
    return False


def wait_closed(port, deadline=10):
    end = time.time() + deadline
    while time.time() < end and port_open(port):
        time.sleep(0.1)


class Page:
    def __init__(self, path, env, python):
        self.path = path
        self.env = env
        self.python = python
        self.servers = []  # (port, proc, log path, expect, where)
        self.passed = 0
        self.failed = 0

    def fail(self, where, why, output=""):
        self.failed += 1
        print(f"FAIL {where}: {why}")
        if output:
            print("   | " + output.strip().replace("\n", "\n   | ")[-4000:])

    def serve(self, where, command, port, expect):
        if port_open(port):
            self.fail(where, f"port {port} is already in use")
            return
        log = tempfile.NamedTemporaryFile(prefix="docs-serve-", suffix=".log", delete=False)
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.servers.append((port, proc, log.name, expect, where))
        if wait_port(port, proc, time.time() + SERVE_TIMEOUT):
            self.passed += 1
            print(f"ok   {where}: serving on 127.0.0.1:{port}")
        else:
            self.fail(where, f"nothing listened on 127.0.0.1:{port}", open(log.name).read())

    def run(self, where, argv, expect):
        try:
            done = subprocess.run(argv, cwd=ROOT, env=self.env, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail(where, f"still running after {RUN_TIMEOUT} s")
            return
        output = done.stdout + done.stderr
        if done.returncode != 0:
            self.fail(where, f"exit code {done.returncode}", output)
        elif expect is not None and expect not in output:
            self.fail(where, f"output lacks {expect!r}", output)
        else:
            self.passed += 1
            print(f"ok   {where}")

    def stop(self):
        for port, proc, log, expect, where in self.servers:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            wait_closed(port)
            output = open(log).read()
            os.unlink(log)
            if expect is not None:
                if expect in output:
                    self.passed += 1
                    print(f"ok   {where}: its output holds {expect!r}")
                else:
                    self.fail(where, f"its output lacks {expect!r}", output)
        self.servers = []


def check_page(path, env, python):
    page = Page(path, env, python)
    rel = os.path.relpath(path, ROOT)
    found = blocks(path)
    if not found:
        return page
    text = open(path, encoding="utf-8").read()
    own_replay = any(k == "serve" and o.get("port") == str(REPLAY_PORT) for _, k, o, _ in found)
    if f"127.0.0.1:{REPLAY_PORT}" in text and not own_replay:
        replay = os.path.join(ROOT, "target", "debug", "examples", "replay_upstream")
        page.serve(f"{rel} (replay upstream)", shlex.join(
            [replay, "--listen", f"127.0.0.1:{REPLAY_PORT}", "examples/streams/weather-hermes.sse"]),
            REPLAY_PORT, None)
    try:
        for line, kind, options, body in found:
            where = f"{rel}:{line}"
            expect = options.get("expect")
            if kind == "serve":
                page.serve(where, body, int(options["port"]), expect)
            elif kind == "run":
                page.run(where, ["bash", "-euo", "pipefail", "-c", body], expect)
            else:
                page.run(where, [python, "-c", body], expect)
    finally:
        page.stop()
    return page


def main():
    pages = sys.argv[1:] or [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "*.md")))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    ext = os.environ.get("TOOLROUTER_EXT_DIR", os.path.join(ROOT, "target", "ext"))
    env = dict(os.environ)
    env["PATH"] = os.path.join(target, "debug") + os.pathsep + env.get("PATH", "")
    env.pop("TOOLROUTER_LOG", None)
    python = os.path.join(ext, "py", "bin", "python3")
    passed = failed = 0
    for path in pages:
        page = check_page(os.path.abspath(path), env, python)
        passed += page.passed
        failed += page.failed
    print(f"docs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
