#!/usr/bin/env python3
"""Ratio table from the last `cargo bench` run of bench-compare.

Reads criterion's `new/benchmark.json` + `new/estimates.json` under
`$CARGO_TARGET_DIR/criterion` (or `./target/criterion`, or the directory given
as the first argument) and prints a Markdown table: per dialect, size and delta
size, toolrouter's and tool-parser's time per stream, tool-parser / toolrouter,
and each against `serde_json::from_str` of the same arguments (same run).
Times are criterion's median point estimates.
"""

import json
import os
import sys
from pathlib import Path


def load(root):
    out = {}
    for bench in root.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        tp = meta.get("throughput") or {}
        out[meta["full_id"]] = (est["median"]["point_estimate"], tp.get("Bytes"))
    return out


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def main():
    if len(sys.argv) > 1:
        root = Path(sys.argv[1])
    else:
        target = os.environ.get("CARGO_TARGET_DIR", str(Path(__file__).parent / "target"))
        root = Path(target) / "criterion"
    data = load(root)
    rows = {}
    for full_id in data:
        parts = full_id.split("/")
        if len(parts) == 4 and parts[2] in ("toolrouter", "tool_parser"):
            rows.setdefault((parts[0], parts[1], int(parts[3])), {})[parts[2]] = data[full_id]
    order = {"1K": 0, "16K": 1, "256K": 2}
    print("| workload | deltas | toolrouter | tool-parser | tool-parser / toolrouter "
          "| toolrouter × serde | tool-parser × serde | ns/delta toolrouter | ns/delta tool-parser |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (dialect, size, n) in sorted(rows, key=lambda k: (k[0], order.get(k[1], 9), k[2])):
        sides = rows[(dialect, size, n)]
        serde = data.get(f"serde_json/{size}/from_str", (None, None))[0]
        tr = sides.get("toolrouter", (None, None))
        tp = sides.get("tool_parser", (None, None))
        nbytes = tr[1] or tp[1]
        deltas = nbytes / n if nbytes else None

        def ratio(a, b):
            return f"{a / b:.1f}×" if a and b else "–"

        def per_delta(t):
            return f"{t / deltas:.0f}" if t and deltas else "–"

        print(f"| {dialect}/{size} | {n} B | {fmt_time(tr[0])} | {fmt_time(tp[0])} | "
              f"{ratio(tp[0], tr[0])} | {ratio(tr[0], serde)} | {ratio(tp[0], serde)} | "
              f"{per_delta(tr[0])} | {per_delta(tp[0])} |")
    for size in ("1K", "16K", "256K"):
        s = data.get(f"serde_json/{size}/from_str")
        if s:
            print(f"\nserde_json::from_str of the {size} arguments: {fmt_time(s[0])}", end="")
    print()


if __name__ == "__main__":
    main()
