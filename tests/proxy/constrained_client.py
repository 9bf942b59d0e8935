"""An app using the official `openai` SDK against `toolrouter proxy` in front
of a real model server (llama.cpp's `llama-server`), for
tests/it/llama_server.rs.

Usage: constrained_client.py BASE_URL SPEC_FILE

SPEC_FILE holds a JSON list of requests, each the keyword arguments of
`chat.completions.create` (`stream` among them). Each is made through the
SDK, streamed answers folded the way an app folds them, and one JSON line is
printed: per request, the text, the calls (name, arguments as parsed JSON or
the raw text when they are not JSON), the finish reason, or the error the
SDK raised. The checks are the Rust test's.
"""

import json
import sys

import openai


def fold_stream(stream):
    content, calls, finish = "", {}, None
    for chunk in stream:
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                content += delta.content
            for call in delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"name": "", "arguments": ""})
                if call.function and call.function.name:
                    slot["name"] = call.function.name
                if call.function and call.function.arguments:
                    slot["arguments"] += call.function.arguments
            if choice.finish_reason:
                finish = choice.finish_reason
    return content, [calls[i] for i in sorted(calls)], finish


def parsed(arguments):
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def run(client, request):
    try:
        if request.get("stream"):
            content, calls, finish = fold_stream(client.chat.completions.create(**request))
        else:
            answer = client.chat.completions.create(**request)
            choice = answer.choices[0]
            content = choice.message.content or ""
            calls = [{"name": c.function.name, "arguments": c.function.arguments}
                     for c in choice.message.tool_calls or []]
            finish = choice.finish_reason
    except openai.APIError as e:
        return {"error": f"{type(e).__name__}: {e}"}
    return {
        "content": content,
        "calls": [{"name": c["name"], "arguments": parsed(c["arguments"])} for c in calls],
        "finish_reason": finish,
    }


def main():
    base_url, spec = sys.argv[1], sys.argv[2]
    client = openai.OpenAI(base_url=base_url, api_key="none", max_retries=0, timeout=600)
    with open(spec, encoding="utf-8") as f:
        requests = json.load(f)
    print(json.dumps([run(client, request) for request in requests]))


if __name__ == "__main__":
    main()
