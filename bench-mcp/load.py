#!/usr/bin/env python3
"""Bounded load on a running `toolrouter serve --http` (standard library only).

    load.py calls   --url http://127.0.0.1:PORT/mcp --pid PID [--pid PID2] [--clients 50] [--secs 60] [--sessions]
    load.py churn   --url http://127.0.0.1:PORT/mcp --pid PID --sessions-per-wave 20000 --waves 2 --expiry SECS

`calls`: CLIENTS clients, each on one kept-alive connection (and, with
`--sessions`, in a session of its own), call the built-in `calculate` tool
for SECS seconds. Every reply must be HTTP 200 with a JSON-RPC result for
the call's id; anything else is an error. A connection the server closes
after a reply that says `Connection: close` (nginx does after 1,000 requests)
is opened again, as an HTTP client does. The server's resident memory (VmRSS
of PID, summed over every --pid) is sampled every second; each call's latency
is kept for the p50 and p99.

`churn`: opens SESSIONS-PER-WAVE sessions (initialize only, never closed),
waits EXPIRY seconds for the server's idle expiry to close them, and does
it again WAVES times; the server's memory after each wave and after each
expiry shows whether expired sessions give their memory back (a later wave
then costs no more than the first).

Prints one JSON object; exits 1 if any call failed.
"""
import argparse
import asyncio
import json
import sys
import time
from urllib.parse import urlsplit

PROTOCOL = "2025-11-25"


def rss_kib(pid):
    if isinstance(pid, list):
        known = [r for r in (rss_kib(p) for p in pid) if r is not None]
        return sum(known) if known else None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Conn:
    """One kept-alive HTTP/1.1 connection."""

    def __init__(self, host, port, path):
        self.host, self.port, self.path = host, port, path
        self.reader = self.writer = None
        self.closing = False

    async def open(self):
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    def close(self):
        if self.writer:
            self.writer.close()

    async def post(self, body, session=None):
        data = json.dumps(body).encode()
        head = (
            f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            "Accept: application/json, text/event-stream\r\n"
            "Content-Type: application/json\r\n"
            f"MCP-Protocol-Version: {PROTOCOL}\r\n"
        )
        if session:
            head += f"Mcp-Session-Id: {session}\r\n"
        head += f"Content-Length: {len(data)}\r\n\r\n"
        self.writer.write(head.encode() + data)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("connection closed")
        status = int(status_line.split()[1])
        headers = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            payload = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readline()
                    break
                parts.append(await self.reader.readexactly(size))
                await self.reader.readline()
            payload = b"".join(parts)
        else:
            payload = b""
        self.closing = headers.get("connection", "").lower() == "close"
        return status, headers, payload


def messages(headers, payload):
    """The JSON-RPC messages of a reply (a JSON body or SSE `data:` lines)."""
    if headers.get("content-type", "").startswith("text/event-stream"):
        out = []
        for line in payload.decode().splitlines():
            if line.startswith("data:") and line[5:].strip():
                out.append(json.loads(line[5:]))
        return out
    return [json.loads(payload)] if payload else []


def initialize(n):
    return {
        "jsonrpc": "2.0",
        "id": n,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "load", "version": "0"},
        },
    }


async def open_session(conn):
    status, headers, _ = await conn.post(initialize(0))
    session = headers.get("mcp-session-id")
    if status != 200 or not session:
        raise RuntimeError(f"initialize: HTTP {status}, session {session!r}")
    status, _, _ = await conn.post(
        {"jsonrpc": "2.0", "method": "notifications/initialized"}, session
    )
    if status not in (200, 202):
        raise RuntimeError(f"initialized: HTTP {status}")
    return session


async def client(url, sessions, deadline, stats):
    conn = Conn(url.hostname, url.port, url.path)
    await conn.open()
    session = await open_session(conn) if sessions else None
    n = 0
    try:
        while time.monotonic() < deadline:
            if conn.closing:
                conn.close()
                conn = Conn(url.hostname, url.port, url.path)
                await conn.open()
            n += 1
            call = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "calculate", "arguments": {"expression": f"{n} * 2"}},
            }
            started = time.monotonic()
            try:
                status, headers, payload = await conn.post(call, session)
                replies = [m for m in messages(headers, payload) if m.get("id") == n]
                ok = (
                    status == 200
                    and len(replies) == 1
                    and "result" in replies[0]
                    and not replies[0]["result"].get("isError")
                )
            except Exception as e:  # a cut connection counts as an error
                ok, status, payload = False, repr(e), b""
                conn.close()
                conn = Conn(url.hostname, url.port, url.path)
                await conn.open()
                session = await open_session(conn) if sessions else None
            stats["calls"] += 1
            stats["latencies"].append(time.monotonic() - started)
            if not ok:
                stats["errors"] += 1
                if len(stats["samples"]) < 5:
                    stats["samples"].append(f"HTTP {status}: {payload[:200]!r}")
    finally:
        conn.close()


async def sample_rss(pid, until, out):
    while time.monotonic() < until:
        out.append(rss_kib(pid))
        await asyncio.sleep(1)


async def calls(args):
    url = urlsplit(args.url)
    stats = {"calls": 0, "errors": 0, "samples": [], "latencies": []}
    rss = []
    rss_start = rss_kib(args.pid)
    start = time.monotonic()
    deadline = start + args.secs
    sampler = asyncio.create_task(sample_rss(args.pid, deadline, rss))
    await asyncio.gather(
        *(client(url, args.sessions, deadline, stats) for _ in range(args.clients))
    )
    await sampler
    elapsed = time.monotonic() - start
    known = [r for r in rss if r is not None]
    latencies = sorted(stats["latencies"])

    def percentile(q):
        if not latencies:
            return None
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 2)

    return {
        "mode": "sessions" if args.sessions else "stateless",
        "clients": args.clients,
        "secs": round(elapsed, 1),
        "calls": stats["calls"],
        "calls_per_sec": round(stats["calls"] / elapsed),
        "errors": stats["errors"],
        "error_samples": stats["samples"],
        "p50_ms": percentile(0.50),
        "p99_ms": percentile(0.99),
        "rss_kib_start": rss_start,
        "rss_kib_at_5s": known[5] if len(known) > 5 else None,
        "rss_kib_at_end": known[-1] if known else None,
        "rss_kib_max": max(known) if known else None,
    }


async def churn(args):
    url = urlsplit(args.url)
    report = {"sessions_per_wave": args.sessions_per_wave, "rss_kib_start": rss_kib(args.pid)}
    for wave in range(1, args.waves + 1):
        opened = 0
        failed = 0

        async def opener(count):
            nonlocal opened, failed
            conn = Conn(url.hostname, url.port, url.path)
            await conn.open()
            try:
                for _ in range(count):
                    try:
                        await open_session(conn)
                        opened += 1
                    except Exception:
                        failed += 1
                        conn.close()
                        conn = Conn(url.hostname, url.port, url.path)
                        await conn.open()
            finally:
                conn.close()

        per = args.sessions_per_wave // args.clients
        await asyncio.gather(*(opener(per) for _ in range(args.clients)))
        report[f"wave{wave}_opened"] = opened
        report[f"wave{wave}_failed"] = failed
        report[f"wave{wave}_rss_kib"] = rss_kib(args.pid)
        await asyncio.sleep(args.expiry)
        report[f"wave{wave}_after_expiry_rss_kib"] = rss_kib(args.pid)
    return report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["calls", "churn"])
    ap.add_argument("--url", required=True)
    ap.add_argument(
        "--pid", type=int, action="append", required=True,
        help="the server's process id (memory); repeat to sum several processes",
    )
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--secs", type=float, default=60)
    ap.add_argument("--sessions", action="store_true", help="each client in a session")
    ap.add_argument("--sessions-per-wave", type=int, default=20000)
    ap.add_argument("--waves", type=int, default=2)
    ap.add_argument("--expiry", type=float, default=10, help="seconds to wait after a wave")
    args = ap.parse_args()
    report = asyncio.run(calls(args) if args.what == "calls" else churn(args))
    print(json.dumps(report))
    return 1 if report.get("errors") or report.get("wave1_failed") else 0


if __name__ == "__main__":
    sys.exit(main())
