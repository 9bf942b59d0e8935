"""BFCL (the Berkeley Function Calling Leaderboard) on a llama.cpp model through
`toolrouter proxy --text-tools --provider llamacpp`, constrained and not.

The questions, possible answers and AST checker are those of PyPI's `bfcl-eval`
wheel (installed with `--no-deps`; see README.md). Each entry's functions become
OpenAI `tools` with BFCL's own converter (`convert_to_tool` with
`GORILLA_TO_OPENAPI`, as its OpenAI Chat Completions handler does: `dict` ->
object, `float` -> number, `tuple` -> array, `any` -> string, `.` in names ->
`_`, the Python hint added to descriptions), and the question is sent through the
proxy with the `openai` SDK, temperature 0, a bounded `max_tokens`:

- `constrained`: `tool_choice: "required"`, proxy `--constrain auto` (the
  proxy sends the GBNF grammar of the tools);
- `unconstrained`: `tool_choice: "auto"` (as BFCL's handler sends it: no
  `tool_choice`), proxy `--constrain off`;
- `required-off` (optional): `tool_choice: "required"`, `--constrain off`.

Per category and mode: the valid-call rate (the answer has at least one call
whose name is one of the entry's functions and whose arguments are a JSON
object that validates against that function's schema as sent) and BFCL's AST
accuracy (its `ast_checker` on the decoded calls, `[{name: arguments}]`, as
its FC handlers decode them; an answer without calls fails), n, and the mean
latency. The modes run interleaved per question, so drift on a shared machine
hits them alike.

  python benches/llama/bfcl.py [--limit N] [--modes constrained,unconstrained]
      [--proxy-bin PATH] [--llama-server PATH] [--model PATH] [--out FILE.jsonl]
"""

import argparse
import copy
import json
import signal
import re
import sys
import time
import types
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import servers  # noqa: E402


def import_bfcl():
    """The wheel's checker and converter, without its model registry (which
    imports every provider's SDK): the checker only asks the registry whether
    a model writes `.` in names as `_`, and for an OpenAI-style model it does."""
    class AnyModel(dict):
        def __missing__(self, key):
            return types.SimpleNamespace(underscore_to_dot=True)

    stub = types.ModuleType("bfcl_eval.constants.model_config")
    stub.MODEL_CONFIG_MAPPING = AnyModel()
    sys.modules["bfcl_eval.constants.model_config"] = stub
    import bfcl_eval
    from bfcl_eval.constants.enums import Language, ModelStyle
    from bfcl_eval.constants.type_mappings import GORILLA_TO_OPENAPI
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import convert_to_tool
    from bfcl_eval.utils import (add_language_specific_hint_to_function_doc,
                                 is_function_calling_format_output)
    return types.SimpleNamespace(
        data=Path(bfcl_eval.__file__).parent / "data",
        Language=Language, ModelStyle=ModelStyle, GORILLA_TO_OPENAPI=GORILLA_TO_OPENAPI,
        ast_checker=ast_checker, convert_to_tool=convert_to_tool,
        add_hint=add_language_specific_hint_to_function_doc,
        is_fc_output=is_function_calling_format_output)


CATEGORIES = ["simple_python", "multiple", "parallel", "live_simple"]
MODES = {
    # name: (proxy --constrain, tool_choice)
    "constrained": ("auto", "required"),
    "unconstrained": ("off", "auto"),
    "required-off": ("off", "required"),
}


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load(bfcl, category, limit):
    # Exactly the category's file: `*_multiple.json` would also match
    # `parallel_multiple` and `live_multiple`.
    exact = re.compile(rf"BFCL_v\d+_{re.escape(category)}\.json")
    files = sorted(f for f in bfcl.data.glob("BFCL_v*.json") if exact.fullmatch(f.name))
    answers = sorted(f for f in (bfcl.data / "possible_answer").glob("BFCL_v*.json")
                     if exact.fullmatch(f.name))
    if not files or not answers:
        sys.exit(f"no data for {category} in {bfcl.data}")
    entries = read_jsonl(files[-1])
    truth = {a["id"]: a["ground_truth"] for a in read_jsonl(answers[-1])}
    entries = [e for e in entries if e["id"] in truth]
    if limit:
        entries = entries[:limit]
    # As BFCL's loader does before generation: the language hint in each description.
    prompted = bfcl.add_hint(copy.deepcopy(entries))
    out = []
    for raw, entry in zip(entries, prompted):
        tools = bfcl.convert_to_tool(entry["function"], bfcl.GORILLA_TO_OPENAPI,
                                     bfcl.ModelStyle.OPENAI_COMPLETIONS)
        out.append({"id": raw["id"], "messages": entry["question"][0], "tools": tools,
                    "functions": raw["function"], "truth": truth[raw["id"]]})
    return out


def ask(client, entry, tool_choice, max_tokens, parallel):
    start = time.monotonic()
    extra = {} if parallel is None else {"parallel_tool_calls": parallel}
    try:
        answer = client.chat.completions.create(
            model="smollm2", messages=entry["messages"], tools=entry["tools"],
            tool_choice=tool_choice, temperature=0, max_tokens=max_tokens, **extra)
    except Exception as e:  # an HTTP error from the proxy is a result too
        return {"error": f"{type(e).__name__}: {e}", "latency": time.monotonic() - start,
                "calls": [], "content": ""}
    latency = time.monotonic() - start
    message = answer.choices[0].message
    calls = [{"name": c.function.name, "arguments": c.function.arguments}
             for c in message.tool_calls or []]
    usage = answer.usage
    return {"calls": calls, "content": message.content or "", "latency": latency,
            "finish_reason": answer.choices[0].finish_reason,
            "completion_tokens": usage.completion_tokens if usage else None}


def valid_call(entry, calls):
    """At least one call of a given function whose arguments are an object
    that validates against its schema."""
    import jsonschema
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in entry["tools"]}
    for call in calls:
        schema = schemas.get(call["name"])
        if schema is None:
            continue
        try:
            args = json.loads(call["arguments"])
        except (TypeError, ValueError):
            continue
        if not isinstance(args, dict):
            continue
        try:
            jsonschema.validate(args, schema)
        except jsonschema.ValidationError:
            continue
        except jsonschema.SchemaError:
            return None  # a schema the validator cannot read: not counted
        return True
    return False


def ast_valid(bfcl, category, entry, result):
    """BFCL's verdict, as its eval runner gives it for an FC model: decode
    (`json.loads` of each call's arguments), check the format, then
    `ast_checker`. No calls: the answer is the text, which does not decode."""
    if not result["calls"]:
        return False, "no call"
    try:
        decoded = [{c["name"]: json.loads(c["arguments"])} for c in result["calls"]]
    except (TypeError, ValueError) as e:
        return False, f"decoder failed: {e}"
    if not bfcl.is_fc_output(decoded):
        return False, "wrong output format"
    verdict = bfcl.ast_checker(entry["functions"], decoded, entry["truth"],
                               bfcl.Language.PYTHON, category, "toolrouter_smollm2")
    return verdict["valid"], verdict.get("error_type", "")


def percent(k, n):
    return f"{100 * k / n:.1f} %" if n else "–"


LABELS = {"constrained": "constrained (`required`, `--constrain auto`)",
          "unconstrained": "unconstrained (`auto`, `--constrain off`)",
          "required-off": "`required`, `--constrain off`"}


def table(rows, categories, modes):
    """The markdown table of the answers' rows (as written to --out)."""
    stats = defaultdict(lambda: defaultdict(float))
    errors = defaultdict(int)
    for r in rows:
        for key in [(r["category"], r["mode"]), ("all", r["mode"])]:
            s = stats[key]
            s["n"] += 1
            s["valid"] += r["valid_call"] is True
            s["valid_n"] += r["valid_call"] is not None
            s["ast"] += r["ast"]
            s["latency"] += r["latency"]
            s["with_calls"] += bool(r["calls"])
            s["one_call"] += len(r["calls"]) == 1
            s["errors"] += "error" in r
        if "error" in r:
            errors[r["error"][:200]] += 1
    lines = ["| category | mode | n | valid-call rate | AST accuracy | answers with calls (one call) | errors | mean latency |",
             "|---|---|---|---|---|---|---|---|"]
    for category in categories + ["all"]:
        for mode in modes:
            s = stats[(category, mode)]
            n = int(s["n"])
            if not n:
                continue
            lines.append(
                f"| {category} | {LABELS[mode]} | {n} | {percent(s['valid'], s['valid_n'])} | "
                f"{percent(s['ast'], n)} | {percent(s['with_calls'], n)} ({percent(s['one_call'], n)}) | "
                f"{int(s['errors'])} | {s['latency'] / n:.2f} s |")
    if errors:
        lines.append("\nerrors:")
        for e, k in sorted(errors.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {k} × {e}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    ap.add_argument("--modes", default="constrained,unconstrained",
                    help=f"comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--limit", type=int, default=0, help="questions per category (0: all)")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--parallel-tool-calls", choices=["category", "unset"], default="category",
                    help="category: false except in the parallel categories (every mode); "
                         "unset: not sent (parallel calls allowed, as BFCL's OpenAI handler sends it)")
    ap.add_argument("--proxy-bin", default=servers.default_proxy_bin())
    ap.add_argument("--llama-server", default=servers.default_llama_server())
    ap.add_argument("--model", default=servers.default_model())
    ap.add_argument("--threads", type=int, default=1,
                    help="llama-server -t (2 on a shared 2-vCPU box: threads spin at barriers, far slower)")
    ap.add_argument("--out", help="write every answer and verdict here (JSON lines)")
    ap.add_argument("--logs", help="directory for llama-server's and the proxies' logs")
    ap.add_argument("--resume", action="store_true",
                    help="keep the answers already in --out (of these questions) and ask only the rest")
    ap.add_argument("--table-from", help="print the table of a former run's --out file and stop")
    args = ap.parse_args()
    # Stopped with SIGTERM: still stop the servers (the `finally` below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    modes = [m for m in args.modes.split(",") if m]
    for m in modes:
        if m not in MODES:
            sys.exit(f"unknown mode {m}")
    categories = [c for c in args.categories.split(",") if c]
    if args.table_from:
        rows = read_jsonl(args.table_from)
        print(table(rows, categories, modes))
        return

    import openai
    bfcl = import_bfcl()
    data = {c: load(bfcl, c, args.limit) for c in categories}
    # Round robin over the categories, so that a run cut short covers each.
    work = []
    for i in range(max(len(v) for v in data.values())):
        for c in categories:
            if i < len(data[c]):
                work.append((c, data[c][i]))
    logs = Path(args.logs) if args.logs else None
    if logs:
        logs.mkdir(parents=True, exist_ok=True)

    llama = servers.LlamaServer(args.llama_server, args.model, threads=args.threads,
                                log=logs / "llama-server.log" if logs else None)
    proxies, clients = {}, {}
    rows = []
    started = time.monotonic()
    try:
        for constrain in sorted({MODES[m][0] for m in modes}):
            proxies[constrain] = servers.Proxy(
                args.proxy_bin, llama.base + "/v1", constrain,
                log=logs / f"proxy-{constrain}.log" if logs else None)
            clients[constrain] = openai.OpenAI(base_url=proxies[constrain].url, api_key="none",
                                               max_retries=0, timeout=600)
        done = set()
        if args.resume and args.out and Path(args.out).exists():
            wanted = {(c, e["id"]) for c, e in work}
            rows = [r for r in read_jsonl(args.out)
                    if (r["category"], r["id"]) in wanted and r["mode"] in modes]
            done = {(r["category"], r["id"], r["mode"]) for r in rows}
            print(f"  resuming: {len(rows)} answers kept", file=sys.stderr, flush=True)
        out = open(args.out, "w", encoding="utf-8") if args.out else None
        for r in rows if out else []:
            out.write(json.dumps(r) + "\n")
        total = len(work) * len(modes)
        for i, (category, entry) in enumerate(work):
            parallel = None
            if args.parallel_tool_calls == "category":
                parallel = "parallel" in category
            # Interleaved, the first mode rotating, so no mode always goes first.
            order = modes[i % len(modes):] + modes[:i % len(modes)]
            for mode in order:
                if (category, entry["id"], mode) in done:
                    continue
                constrain, choice = MODES[mode]
                result = ask(clients[constrain], entry, choice, args.max_tokens, parallel)
                valid = valid_call(entry, result["calls"])
                ast_ok, why = ast_valid(bfcl, category, entry, result)
                row = {"id": entry["id"], "category": category, "mode": mode, **result,
                       "valid_call": valid, "ast": ast_ok, "ast_error": why}
                rows.append(row)
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
            if (i + 1) % 10 == 0:
                el = time.monotonic() - started
                k = len(rows)
                print(f"  {k}/{total} answers, {el:.0f} s, ~{el / max(k - len(done), 1) * (total - k):.0f} s left",
                      file=sys.stderr, flush=True)
    finally:
        for p in proxies.values():
            p.stop()
        llama.stop()
    elapsed = time.monotonic() - started

    print(f"\nBFCL ({', '.join(categories)}), {args.model.rsplit('/', 1)[-1]}, "
          f"max_tokens {args.max_tokens}, temperature 0, limit {args.limit or 'none'}, "
          f"parallel_tool_calls {args.parallel_tool_calls}; {len(rows)} answers in {elapsed:.0f} s\n")
    print(table(rows, categories, modes))


if __name__ == "__main__":
    main()
