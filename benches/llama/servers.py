"""Starts and stops what the llama benches talk to, all on 127.0.0.1: llama.cpp's
`llama-server` with SmolLM2-135M-Instruct, and `toolrouter proxy --text-tools
--provider llamacpp` in front of it. Shared by throughput.py and bfcl.py.

Default paths are those of `.ci/setup-llama.sh` (`$TOOLROUTER_EXT_DIR/llama`,
else `target/ext/llama`) and of a release build (`$CARGO_TARGET_DIR/release`,
else `target/release`).
"""

import json
import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def default_ext_dir():
    return Path(os.environ.get("TOOLROUTER_EXT_DIR", REPO / "target" / "ext")) / "llama"


def default_llama_server():
    return str(default_ext_dir() / "bin" / "llama-server")


def default_model():
    return str(default_ext_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf")


def default_proxy_bin():
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return str(target / "release" / "toolrouter")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """`llama-server` on a free port of 127.0.0.1 (one slot)."""

    def __init__(self, binary, model, ctx=4096, threads=1, log=None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = open(log, "wb") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "-m", model,
             "-c", str(ctx), "-np", "1", "-t", str(threads), "--no-webui"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("llama-server did not become ready within 120 s")

    def props(self):
        with urllib.request.urlopen(self.base + "/props", timeout=10) as r:
            return json.load(r)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Proxy:
    """`toolrouter proxy --text-tools --provider llamacpp` in front of `upstream`
    (a `.../v1` URL), listening on a port of its choosing; `url` is the `/v1`
    URL its first stderr line states."""

    def __init__(self, binary, upstream, constrain, log=None):
        self.proc = subprocess.Popen(
            [binary, "proxy", "--listen", "127.0.0.1:0", "--upstream", upstream,
             "--provider", "llamacpp", "--text-tools", "--constrain", constrain],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={k: v for k, v in os.environ.items() if k != "TOOLROUTER_LOG"})
        line = self.proc.stderr.readline().decode()
        prefix = "toolrouter: proxying at "
        if not line.startswith(prefix):
            self.stop()
            raise RuntimeError(f"proxy's first stderr line: {line!r}")
        self.url = line[len(prefix):].split(" -> ")[0].strip()
        # The rest of stderr (warnings) goes to a file, or is drained and dropped.
        self.log = open(log, "wb") if log else None
        import threading
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            if self.log:
                self.log.write(line)
                self.log.flush()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
