"""Per-delta cost of toolrouter's Python package and of vLLM's own tool parsers.

The workloads are benches/detect.rs's (benches/workloads/mod.rs): one
`write_to_file` call whose `content` argument is 1 KB, 16 KB or 256 KB of
file text (quotes, backslashes, newlines, non-ASCII), written as Hermes,
Qwen3-Coder and Mistral (v11) models write it, fed in 4-byte deltas (cut at
character boundaries). Every parser must yield that one call with those
arguments; the run stops if one does not.

vLLM's parsers are driven as its serving layer drives them: each delta with
the text so far. Building that text (`current = previous + delta`) is timed
on its own and subtracted, so the vLLM column is the parser's own cost.

    python bench/bench.py                # 1K, 16K, 256K (256K with vLLM takes minutes)
    python bench/bench.py --sizes 1K,16K # quicker
    python bench/bench.py --no-vllm      # toolrouter only

Times are CPU time of this process (`time.process_time`), not wall time: the
machines this runs on are shared, and CPU time leaves out the waits for a CPU
that other processes cause, on both sides alike.

Prints a Markdown table (the one in docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import toolrouter
from toolrouter import CallEnd, StreamDetector
from toolrouter._toolrouter import _noop

TOOL = "write_to_file"
PATH = "src/big.rs"
SIZES = {"1K": 1024, "16K": 16 * 1024, "256K": 256 * 1024}
LINE = 'let s = "quote \\"x\\" path C:\\\\dir"; // café 日本 🚀 {a: [1, 2]}'
SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
}
TOOLS = [
    {"type": "function", "function": {"name": TOOL, "parameters": SCHEMA}},
    {"type": "function", "function": {"name": "read_file", "parameters": SCHEMA}},
]


def content(size: int) -> str:
    """The same text as workloads::content: whole lines up to `size` UTF-8 bytes."""
    lines: list[str] = []
    length = 0
    line_len = len(LINE.encode())
    while length + line_len < size or not lines:
        if lines:
            length += 1
        lines.append(LINE)
        length += line_len
    return "\n".join(lines)


def args_json(c: str) -> str:
    return json.dumps({"path": PATH, "content": c}, ensure_ascii=False, separators=(",", ":"))


DIALECTS = {
    "hermes": lambda c: (
        f'<tool_call>\n{{"name": "{TOOL}", "arguments": {args_json(c)}}}\n</tool_call>'
    ),
    "qwen3_coder": lambda c: (
        f"<tool_call>\n<function={TOOL}>\n<parameter=path>\n{PATH}\n</parameter>\n"
        f"<parameter=content>\n{c}\n</parameter>\n</function>\n</tool_call>"
    ),
    # vLLM's Mistral parser reads the v11 form with any tokenizer.
    "mistral": lambda c: f"[TOOL_CALLS]{TOOL}[ARGS]{args_json(c)}",
}


def deltas(s: str, n: int) -> list[str]:
    """workloads::deltas: `n` UTF-8 bytes a piece, extended to a character boundary."""
    out: list[str] = []
    data = s.encode()
    pos = 0
    while pos < len(data):
        end = min(pos + n, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end += 1
        out.append(data[pos:end].decode())
        pos = end
    return out


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def run_toolrouter(fmt: str, pieces: list[str], expected: dict) -> float:
    def once():
        d = StreamDetector(TOOLS, fmt)
        feed = d.feed
        for p in pieces:
            feed(p)
        return d.finish()

    # Check once, collecting every event.
    d = StreamDetector(TOOLS, fmt)
    events = [e for p in pieces for e in d.feed(p)] + d.finish()
    calls = [e for e in events if isinstance(e, CallEnd)]
    if len(calls) != 1 or calls[0].name != TOOL or calls[0].arguments != expected:
        sys.exit(f"toolrouter {fmt}: wrong result {calls!r:.200}")
    # Best of several streams: ~0.1 s at 256 KB, more repeats for the short ones.
    repeat = max(9, min(200, 600_000 // max(1, len(pieces))))
    return best_of(once, repeat) / len(pieces)


class StandInTokenizer:
    """The part of a tokenizer vLLM's parsers read: special tokens' ids."""

    vocab = {"<tool_call>": 1, "</tool_call>": 2, "[TOOL_CALLS]": 3, "[ARGS]": 4, "[CALL_ID]": 5}
    all_special_tokens: list = []

    def get_vocab(self):
        return self.vocab

    def convert_tokens_to_ids(self, t):
        return self.vocab.get(t)

    def encode(self, s, **kw):
        return []

    def decode(self, ids, **kw):
        return ""

    def __len__(self):
        return 100


def run_vllm(fmt: str, pieces: list[str], expected: dict) -> float:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager

    req = ChatCompletionRequest(model="m", messages=[], tools=TOOLS)
    cls = ToolParserManager.get_tool_parser(fmt)
    tok = StandInTokenizer()

    def accumulate_only():
        previous = ""
        for p in pieces:
            current = previous + p
            previous = current

    def once():
        parser = cls(tok, req.tools)
        previous = ""
        names: dict[int, str] = {}
        args: dict[int, str] = {}
        extract = parser.extract_tool_calls_streaming
        for p in pieces:
            current = previous + p
            m = extract(previous, current, p, [], [], [], req)
            previous = current
            if m is not None:
                for tc in m.tool_calls or []:
                    fn = tc.function
                    if isinstance(fn, dict):
                        name, a = fn.get("name"), fn.get("arguments")
                    else:
                        name, a = (fn.name, fn.arguments) if fn else (None, None)
                    if name:
                        names[tc.index] = name
                    args[tc.index] = args.get(tc.index, "") + (a or "")
        finish = getattr(parser, "finish_streaming", None)
        if finish is not None:
            m = finish()
            for tc in (m.tool_calls or []) if m is not None else []:
                fn = tc.function
                a = fn.get("arguments") if isinstance(fn, dict) else (fn.arguments if fn else None)
                args[tc.index] = args.get(tc.index, "") + (a or "")
        return names, args

    t = time.process_time()
    names, args = once()
    elapsed = time.process_time() - t
    if names != {0: TOOL} or json.loads(args[0]) != expected:
        sys.exit(f"vLLM {fmt}: wrong result {names} {str(args)[:200]}")
    # Slow runs are timed once (the one above); quick ones, best of several.
    if elapsed < 2.0:
        elapsed = min(elapsed, best_of(once, 3))
    base = best_of(accumulate_only, 3)
    return max(elapsed - base, 0.0) / len(pieces)


def overhead() -> tuple[float, float, float]:
    """ns per call: `_noop(delta)`, `feed("")` (no work, an empty list) and
    `feed("    ")` (whitespace the detector holds: an empty list)."""
    n = 200_000
    empty = [""] * n
    spaces = ["    "] * n

    def noop():
        f = _noop
        for p in spaces:
            f(p)

    def feed_empty():
        f = StreamDetector(TOOLS, "hermes").feed
        for p in empty:
            f(p)

    def feed_ws():
        # Whitespace is held until what follows it is known: no event per delta.
        f = StreamDetector(TOOLS, "hermes").feed
        for p in spaces:
            f(p)

    ns = 1e9 / n
    return best_of(noop, 5) * ns, best_of(feed_empty, 5) * ns, best_of(feed_ws, 5) * ns


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1K,16K,256K")
    ap.add_argument("--no-vllm", action="store_true")
    opts = ap.parse_args()
    sizes = [s for s in opts.sizes.split(",") if s]
    have_vllm = False
    if not opts.no_vllm:
        try:
            import vllm.tool_parsers  # noqa: F401

            have_vllm = True
        except ImportError as e:
            print(f"(vLLM not importable: {e}; toolrouter only)", file=sys.stderr)
    version = ""
    if have_vllm:
        import vllm

        version = vllm.__version__
    print(f"toolrouter {toolrouter.__name__} from {toolrouter.__file__}; vLLM {version or '-'}; "
          f"Python {sys.version.split()[0]}; 4-byte deltas\n")
    print("| workload | deltas | toolrouter ns/delta | vLLM µs/delta | ratio |")
    print("|---|---:|---:|---:|---:|")
    for fmt, make in DIALECTS.items():
        for label in sizes:
            c = content(SIZES[label])
            text = make(c)
            pieces = deltas(text, 4)
            expected = {"path": PATH, "content": c}
            ours = run_toolrouter(fmt, pieces, expected)
            if have_vllm:
                theirs = run_vllm(fmt, pieces, expected)
                cells = f"{theirs * 1e6:,.1f} | {theirs / ours:,.0f}×"
            else:
                cells = "- | -"
            print(f"| {fmt}/{label} | {len(pieces):,} | {ours * 1e9:,.0f} | {cells} |", flush=True)
    noop, empty, held = overhead()
    print()
    print("| call | ns |")
    print("|---|---:|")
    print(f"| `_noop(delta)` (bare PyO3 call, returns `[]`) | {noop:.0f} |")
    print(f"| `feed(\"\")` | {empty:.0f} ({empty / noop:.2f}×) |")
    print(f"| `feed(\"    \")` (held whitespace, returns `[]`) | {held:.0f} ({held / noop:.2f}×) |")


if __name__ == "__main__":
    main()
