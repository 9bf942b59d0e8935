"""An app using the official `anthropic` SDK against `toolrouter proxy`.

Usage: anthropic_client.py SCENARIO BASE_URL [API_KEY]

BASE_URL is the proxy's root (the SDK adds `/v1/messages`). Each scenario makes
its requests through the SDK and prints one JSON line of what the app saw, for
tests/it/proxy_anthropic.rs to check against hand-written expectations. The SDK
never retries (max_retries=0), so a fault is seen once.
"""

import json
import sys

import anthropic

from app_tools import run_tool

TOOLS = [
    {
        "name": "get_weather",
        "description": "The current weather in a city",
        "input_schema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    }
]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def read_message(message):
    """What an app reads from the SDK's message object."""
    blocks = []
    for block in message.content:
        if block.type == "text":
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "thinking":
            blocks.append({"type": "thinking", "thinking": block.thinking})
        elif block.type == "tool_use":
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name,
                           "input": block.input})
        else:
            blocks.append({"type": block.type})
    return {
        "id": message.id,
        "model": message.model,
        "role": message.role,
        "content": blocks,
        "stop_reason": message.stop_reason,
        "usage": {"input_tokens": message.usage.input_tokens,
                  "output_tokens": message.usage.output_tokens},
    }


def stream_turn(client, messages):
    """One streamed turn: the raw event types, the number of `input_json_delta`
    events per block, and the SDK's final message."""
    kinds, json_deltas = [], {}
    with client.messages.stream(model="m", max_tokens=512, messages=messages,
                                tools=TOOLS) as stream:
        for event in stream:
            if event.type in ("text", "thinking", "input_json", "signature"):
                continue  # the SDK's own helper events
            kinds.append(event.type)
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                json_deltas[event.index] = json_deltas.get(event.index, 0) + 1
        final = stream.get_final_message()
    out = read_message(final)
    out["events"] = kinds
    out["input_json_deltas"] = [json_deltas[k] for k in sorted(json_deltas)]
    return out


def api_error(e):
    return {
        "class": type(e).__name__,
        "status": getattr(e, "status_code", None),
        "message": e.message,
        "body": e.body,
    }


def main():
    scenario, base_url = sys.argv[1], sys.argv[2]
    api_key = sys.argv[3] if len(sys.argv) > 3 else "sk-ant-client"
    client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0, timeout=30)
    create = client.messages.create
    if scenario == "stream":
        out = stream_turn(client, MESSAGES)
    elif scenario == "complete":
        out = read_message(create(model="m", max_tokens=512, messages=MESSAGES, tools=TOOLS))
    elif scenario == "loop":
        messages = list(MESSAGES)
        first = stream_turn(client, messages)
        assistant = [b for b in first["content"] if b["type"] != "thinking"]
        messages.append({"role": "assistant", "content": assistant})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": b["id"], "content": run_tool(b["name"], b["input"])}
            for b in assistant if b["type"] == "tool_use"
        ]})
        second = stream_turn(client, messages)
        out = {"first": first, "second": second}
    elif scenario == "error":
        try:
            create(model="m", max_tokens=512, messages=MESSAGES, tools=TOOLS)
            out = {"class": None}
        except anthropic.APIStatusError as e:
            out = api_error(e)
    elif scenario == "stream_error":
        text = ""
        try:
            with client.messages.stream(model="m", max_tokens=512, messages=MESSAGES,
                                        tools=TOOLS) as stream:
                for event in stream:
                    if event.type == "text":
                        text += event.text
            out = {"class": None, "text": text}
        except anthropic.APIError as e:
            out = api_error(e)
            out["text"] = text
        except ValueError as e:
            # The SDK's own reading of a tool_use block's input fragments.
            out = {"class": "ValueError", "message": str(e), "text": text}
    elif scenario == "bad_request":
        try:
            create(model="m", max_tokens=512,
                   messages=[{"role": "user", "content": [{"type": "document", "source": {
                       "type": "text", "media_type": "text/plain", "data": "x"}}]}])
            out = {"class": None}
        except anthropic.APIStatusError as e:
            out = api_error(e)
    elif scenario == "disconnect":
        stream = create(model="m", max_tokens=512, messages=MESSAGES, stream=True)
        first = None
        for event in stream:
            if event.type == "content_block_delta":
                first = event.delta.text
                break
        stream.close()
        out = {"first": first}
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    print(json.dumps(out, ensure_ascii=False))


main()
