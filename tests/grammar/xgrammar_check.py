#!/usr/bin/env python3
"""Checks toolrouter's grammars against XGrammar, the grammar engine of vLLM
and SGLang (run by `src/grammar/tests/xgrammar.rs`, with the interpreter of
the pypkg venv that `.ci/python-pkg.sh` installs XGrammar into).

Usage: xgrammar_check.py CASES.json

CASES.json is a list of cases:

    {"id": "...", "kind": "ebnf" | "structural_tag",
     "grammar": "GBNF text" | "structural tag as JSON text",
     "inputs": ["text", ...]}

Each grammar is compiled the way vLLM compiles it (`GrammarCompiler
.compile_grammar(text)` with the root rule `root`, or
`.compile_structural_tag(json_text)`, after the structural tag validates
as XGrammar's `StructuralTag` model), over a byte-level vocabulary: one
token per byte value and a stop token, so any text can be fed. Each input is
fed to a fresh `GrammarMatcher` as its UTF-8 bytes, then the stop token.

Prints one JSON line per case, in order:

    {"id": "...", "error": null | "why the grammar was refused",
     "results": [{"accepted": bool, "completed": bool, "terminated": bool,
                  "rejected_at": null | byte offset}, ...]}

`accepted`: every byte was accepted; `completed`: the grammar may end there
(`is_completed`); `terminated`: the stop token was then accepted and the
matcher terminated. An input is in the grammar's language when all three hold.
"""

import json
import sys

import xgrammar as xgr
from xgrammar.structural_tag import StructuralTag

STOP = 256


def tokenizer_info() -> xgr.TokenizerInfo:
    vocab = [bytes([b]) for b in range(256)] + [b"</s>"]
    return xgr.TokenizerInfo(vocab, xgr.VocabType.RAW, stop_token_ids=[STOP])


def compile_case(compiler: xgr.GrammarCompiler, case: dict) -> xgr.CompiledGrammar:
    if case["kind"] == "ebnf":
        # What vLLM's request validation does first, then its compilation.
        xgr.Grammar.from_ebnf(case["grammar"], root_rule_name="root")
        return compiler.compile_grammar(case["grammar"], root_rule_name="root")
    if case["kind"] == "structural_tag":
        StructuralTag.from_json(case["grammar"])
        xgr.Grammar.from_structural_tag(case["grammar"])
        return compiler.compile_structural_tag(case["grammar"])
    raise ValueError(f"unknown kind {case['kind']!r}")


def feed(compiled: xgr.CompiledGrammar, text: str) -> dict:
    data = text.encode("utf-8")
    matcher = xgr.GrammarMatcher(compiled)
    if matcher.accept_string(data):
        rejected_at = None
    else:
        # Again byte by byte, to say where.
        matcher = xgr.GrammarMatcher(compiled)
        rejected_at = next(
            (i for i, b in enumerate(data) if not matcher.accept_token(b)), len(data)
        )
    accepted = rejected_at is None
    completed = accepted and matcher.is_completed()
    terminated = accepted and matcher.accept_token(STOP) and matcher.is_terminated()
    return {
        "accepted": accepted,
        "completed": completed,
        "terminated": terminated,
        "rejected_at": rejected_at,
    }


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    compiler = xgr.GrammarCompiler(tokenizer_info(), max_threads=2, cache_enabled=False)
    for case in cases:
        verdict = {"id": case["id"], "error": None, "results": []}
        try:
            compiled = compile_case(compiler, case)
        except Exception as e:  # noqa: BLE001 - the refusal is the verdict
            verdict["error"] = f"{type(e).__name__}: {e}"
        else:
            verdict["results"] = [feed(compiled, text) for text in case["inputs"]]
        print(json.dumps(verdict), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
