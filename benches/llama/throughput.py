"""Speed of the proxy's grammar on a real `llama-server`: tokens/s and time to
first token, against no grammar and against llama.cpp's own `json_schema`
constraint, in one run with the requests interleaved (the machine is noisy:
only ratios within one run mean anything).

The upstream request of each prompt is first captured: a
`toolrouter proxy --text-tools --provider llamacpp --constrain auto` in front of
a recorder (a stand-in upstream on 127.0.0.1 that keeps the body and answers a
fixed reply) is asked with `tool_choice: "required"`; its body holds the system
prompt that teaches the tools and `grammar`, the GBNF the proxy built. Then, per
prompt and repetition, with the modes' order rotating:

- `A direct`: that body without `grammar`, straight to llama-server;
- `B direct`: that body with the proxy's `grammar`;
- `C direct`: that body without `grammar`, with `response_format: {type:
  json_schema}` of the tool's parameters (llama.cpp converts the schema to its
  own grammar);
- `A proxy`: through a proxy with `--constrain off`, `tool_choice: "required"`;
- `B proxy`: through a proxy with `--constrain auto`, `tool_choice: "required"`.

All streamed, temperature 0, a fixed `max_tokens`. Tokens/s is llama-server's
own `timings.predicted_per_second` (from its last chunk; through the proxy only
if the proxy passes `timings` on). Time to first token is client-side: from
sending to the first chunk carrying content or a call (through the proxy a call
is shown once its name is read, a few tokens in, so the proxy rows' figure is
"first event", not first token). By default the prompt is in llama-server's
cache before each timed request (an untimed one-token request primes it), so the
first token's time is the constraint's set-up and one decoding step; `--cold`
sends `cache_prompt: false` instead and times the whole prompt as well.

  python benches/llama/throughput.py [--reps 5] [--max-tokens 64] [--cold]
      [--proxy-bin PATH] [--llama-server PATH] [--model PATH] [--json FILE]
"""

import argparse
import http.server
import json
import signal
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import servers  # noqa: E402


def function(name, description, parameters):
    return {"type": "function",
            "function": {"name": name, "description": description, "parameters": parameters}}


WEATHER = function(
    "get_weather", "The current weather in a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})

BOOKING = function(
    "book_flight", "Books a flight",
    {"type": "object", "properties": {
        "from": {"type": "string"},
        "to": {"type": "string"},
        "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
        "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
        "dates": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
        "options": {"type": "object", "properties": {
            "bags": {"type": "integer", "minimum": 0, "maximum": 3},
            "meal": {"type": "boolean"}}, "required": ["bags"]}},
     "required": ["from", "to", "passengers", "dates"]})

PROMPTS = [
    ("weather", "What is the weather in Paris?", WEATHER),
    ("weather", "Is it raining in Tokyo right now?", WEATHER),
    ("weather", "How warm is it in Buenos Aires today?", WEATHER),
    ("flight", "Book a flight from Paris to Rome for 2 people on 2026-12-24, economy, one bag.", BOOKING),
    ("flight", "I need a business class seat from Berlin to Lisbon on 2026-03-02, no luggage.", BOOKING),
    ("flight", "Fly 3 of us from New York to Boston, leaving 2026-05-01 and back 2026-05-04, with meals.", BOOKING),
]

MODES = ["A direct", "B direct", "C direct", "A proxy", "B proxy"]


class Recorder:
    """A stand-in upstream: keeps each request's body, answers a fixed reply."""

    def __init__(self):
        self.bodies = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                recorder.bodies.append(body)
                if body.get("stream"):
                    # The proxy asks its upstream for a stream.
                    chunk = {"id": "rec", "object": "chat.completion.chunk", "created": 0,
                             "model": "rec", "choices": [{"index": 0, "finish_reason": "stop",
                                                          "delta": {"role": "assistant", "content": "ok"}}]}
                    reply = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
                    kind = "text/event-stream"
                else:
                    reply = json.dumps({
                        "id": "rec", "object": "chat.completion", "created": 0, "model": "rec",
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "ok"}}]}).encode()
                    kind = "application/json"
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def post(url, body, timeout=600):
    request = urllib.request.Request(url, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    return urllib.request.urlopen(request, timeout=timeout)


def client_request(prompt, tool, max_tokens, stream, extra=None):
    return {"model": "smollm2", "messages": [{"role": "user", "content": prompt}],
            "tools": [tool], "tool_choice": "required", "parallel_tool_calls": False,
            "temperature": 0, "max_tokens": max_tokens, "stream": stream, **(extra or {})}


def timed_stream(url, body):
    """Streams `body` to `url`; gives (first-event seconds, total seconds, the last
    `timings` seen, the text and call arguments gathered)."""
    start = time.perf_counter()
    first, timings, text = None, None, []
    with post(url, body) as response:
        for raw in response:
            line = raw.strip()
            if not line.startswith(b"data:"):
                continue
            data = line[5:].strip()
            if data == b"[DONE]":
                break
            chunk = json.loads(data)
            if "timings" in chunk:
                timings = chunk["timings"]
            for choice in chunk.get("choices", []):
                delta = choice.get("delta") or {}
                got = delta.get("content") or delta.get("tool_calls")
                if got and first is None:
                    first = time.perf_counter() - start
                if delta.get("content"):
                    text.append(delta["content"])
                for call in delta.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    text.append((fn.get("name") or "") + (fn.get("arguments") or ""))
    return first, time.perf_counter() - start, timings, "".join(text)


def quantile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions of every prompt and mode")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1,
                    help="llama-server -t (2 on a shared 2-vCPU box: threads spin at barriers, 10-40 x slower)")
    ap.add_argument("--cold", action="store_true",
                    help="cache_prompt: false, no priming: time the whole prompt too")
    ap.add_argument("--proxy-bin", default=servers.default_proxy_bin())
    ap.add_argument("--llama-server", default=servers.default_llama_server())
    ap.add_argument("--model", default=servers.default_model())
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--show-grammar", action="store_true", help="print each captured grammar")
    args = ap.parse_args()
    # Stopped with SIGTERM: still stop the servers (the `finally` below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    llama = servers.LlamaServer(args.llama_server, args.model, threads=args.threads)
    recorder = Recorder()
    started = []
    try:
        capture = servers.Proxy(args.proxy_bin, recorder.url, "auto")
        started.append(capture)
        proxy_off = servers.Proxy(args.proxy_bin, llama.base + "/v1", "off")
        started.append(proxy_off)
        proxy_auto = servers.Proxy(args.proxy_bin, llama.base + "/v1", "auto")
        started.append(proxy_auto)
        cache = {"cache_prompt": False} if args.cold else {}

        # The upstream bodies the proxy sends (system prompt, grammar).
        bodies = []
        for _, prompt, tool in PROMPTS:
            with post(capture.url + "/chat/completions",
                      client_request(prompt, tool, args.max_tokens, False, cache)) as r:
                r.read()
            body = recorder.bodies[-1]
            if "grammar" not in body:
                sys.exit(f"the proxy sent no grammar for {prompt!r}: {sorted(body)}")
            if args.cold and body.get("cache_prompt") is not False:
                sys.exit("the proxy does not pass cache_prompt on; --cold cannot be honoured")
            if args.show_grammar:
                print(f"--- {tool['function']['name']}\n{body['grammar']}")
            bodies.append(body)

        direct = llama.base + "/v1/chat/completions"
        rows = []
        i = 0
        for rep in range(args.reps):
            for p, ((kind, prompt, tool), body) in enumerate(zip(PROMPTS, bodies)):
                base = {k: v for k, v in body.items() if k != "grammar"}
                base.update(stream=True, max_tokens=args.max_tokens, temperature=0)
                requests = {
                    "A direct": (direct, base),
                    "B direct": (direct, {**base, "grammar": body["grammar"]}),
                    "C direct": (direct, {**base, "response_format": {
                        "type": "json_schema",
                        "json_schema": {"name": tool["function"]["name"],
                                        "schema": tool["function"]["parameters"]}}}),
                    "A proxy": (proxy_off.url + "/chat/completions",
                                client_request(prompt, tool, args.max_tokens, True, cache)),
                    "B proxy": (proxy_auto.url + "/chat/completions",
                                client_request(prompt, tool, args.max_tokens, True, cache)),
                }
                order = MODES[i % len(MODES):] + MODES[:i % len(MODES)]
                i += 1
                for mode in order:
                    if not args.cold:
                        # The prompt into the slot's cache, untimed.
                        with post(direct, {**base, "stream": False, "max_tokens": 1}) as r:
                            r.read()
                    url, request = requests[mode]
                    first, total, timings, text = timed_stream(url, request)
                    rows.append({"rep": rep, "prompt": p, "kind": kind, "mode": mode,
                                 "ttft": first, "total": total, "timings": timings,
                                 "text": text})
                print(f"  rep {rep + 1}/{args.reps} prompt {p + 1}/{len(PROMPTS)}",
                      file=sys.stderr, flush=True)
        props = llama.props()
    finally:
        for p in started:
            p.stop()
        recorder.stop()
        llama.stop()

    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)

    def col(mode, key, kind=None):
        out = []
        for r in rows:
            if r["mode"] != mode or (kind and r["kind"] != kind):
                continue
            if key == "tps":
                if r["timings"] and r["timings"].get("predicted_n", 0) > 1:
                    out.append(r["timings"]["predicted_per_second"])
            elif key == "n":
                if r["timings"]:
                    out.append(r["timings"]["predicted_n"])
            elif r[key] is not None:
                out.append(r[key] * 1000)
        return out

    print(f"\n{len(rows)} streamed requests, {args.reps} reps × {len(PROMPTS)} prompts × "
          f"{len(MODES)} modes, interleaved; max_tokens {args.max_tokens}, temperature 0, "
          f"llama-server -t {args.threads}, {'cold (cache_prompt false)' if args.cold else 'prompt cached'}; "
          f"llama-server build {props.get('build_info', '?')}\n")
    print("| mode | tokens/s median (p90) | tokens generated (median) | TTFT ms median (p90) | total ms median |")
    print("|---|---|---|---|---|")
    for mode in MODES:
        tps, ttft, n, total = col(mode, "tps"), col(mode, "ttft"), col(mode, "n"), col(mode, "total")
        tps_s = f"{statistics.median(tps):.1f} ({quantile(tps, 0.9):.1f})" if tps else "– (no timings)"
        n_s = f"{statistics.median(n):.0f}" if n else "–"
        print(f"| {mode} | {tps_s} | {n_s} | {statistics.median(ttft):.1f} ({quantile(ttft, 0.9):.1f}) | "
              f"{statistics.median(total):.0f} |")

    print("\nRatios (medians, same run):")
    for kind in [None, "weather", "flight"]:
        label = kind or "all prompts"
        b, c, a = col("B direct", "tps", kind), col("C direct", "tps", kind), col("A direct", "tps", kind)
        if b and c and a:
            print(f"  {label}: tokens/s ours / json_schema = {statistics.median(b) / statistics.median(c):.3f} "
                  f"(target ≥ 0.90); ours / none = {statistics.median(b) / statistics.median(a):.3f}; "
                  f"json_schema / none = {statistics.median(c) / statistics.median(a):.3f}")
        ta, tb, tc = col("A direct", "ttft", kind), col("B direct", "ttft", kind), col("C direct", "ttft", kind)
        print(f"  {label}: TTFT ours − none = {statistics.median(tb) - statistics.median(ta):+.1f} ms "
              f"(p90 {quantile(tb, 0.9) - quantile(ta, 0.9):+.1f}; target ≤ +20), "
              f"json_schema − none = {statistics.median(tc) - statistics.median(ta):+.1f} ms")
        pa, pb = col("A proxy", "ttft", kind), col("B proxy", "ttft", kind)
        print(f"  {label}: through the proxy, first event constrained − off = "
              f"{statistics.median(pb) - statistics.median(pa):+.1f} ms")

    # What each mode wrote for the first prompt (a sanity check).
    print("\nFirst answers (rep 1):")
    for r in rows:
        if r["rep"] == 0 and r["prompt"] in (0, 3):
            print(f"  [{r['mode']}] {r['kind']}: {r['text'][:160]!r}")


if __name__ == "__main__":
    main()
