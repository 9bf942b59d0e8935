"""An app using the official `openai` SDK against `toolrouter proxy`.

Usage: openai_client.py SCENARIO BASE_URL [API_KEY]

Each scenario makes its requests through the SDK and prints one JSON line of
what the app saw, for tests/it/proxy_python.rs to check against hand-written
expectations. The SDK never retries (max_retries=0), so a fault is seen once.
"""

import json
import sys

import openai

from app_tools import get_weather, run_tool

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The current weather in a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


def read_stream(stream):
    """Folds a stream of chunks the way an app does; counts argument fragments."""
    seen = {"content": "", "reasoning": "", "tool_calls": {}, "finish_reason": None,
            "usage": None, "ids": set(), "models": set(), "chunks": 0}
    for chunk in stream:
        seen["chunks"] += 1
        seen["ids"].add(chunk.id)
        seen["models"].add(chunk.model)
        if chunk.usage is not None:
            seen["usage"] = chunk.usage.model_dump(exclude_none=True)
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                seen["content"] += delta.content
            reasoning = getattr(delta, "reasoning_content", None)
            if reasoning:
                seen["reasoning"] += reasoning
            for call in delta.tool_calls or []:
                slot = seen["tool_calls"].setdefault(
                    call.index, {"id": None, "type": None, "name": "", "arguments": "", "fragments": 0})
                if call.id:
                    slot["id"] = call.id
                if call.type:
                    slot["type"] = call.type
                if call.function and call.function.name:
                    slot["name"] += call.function.name
                if call.function and call.function.arguments:
                    slot["arguments"] += call.function.arguments
                    slot["fragments"] += 1
            if choice.finish_reason:
                seen["finish_reason"] = choice.finish_reason
    calls = [seen["tool_calls"][i] for i in sorted(seen["tool_calls"])]
    for call in calls:
        call["arguments"] = json.loads(call["arguments"])
    return {
        "content": seen["content"],
        "reasoning": seen["reasoning"],
        "tool_calls": calls,
        "finish_reason": seen["finish_reason"],
        "usage": seen["usage"],
        "ids": sorted(seen["ids"]),
        "models": sorted(seen["models"]),
    }


def read_completion(completion):
    choice = completion.choices[0]
    message = choice.message
    return {
        "id": completion.id,
        "object": completion.object,
        "model": completion.model,
        "content": message.content,
        "reasoning": getattr(message, "reasoning_content", None),
        "tool_calls": [
            {"id": c.id, "type": c.type, "name": c.function.name,
             "arguments": json.loads(c.function.arguments)}
            for c in message.tool_calls or []
        ],
        "finish_reason": choice.finish_reason,
        "usage": completion.usage.model_dump(exclude_none=True) if completion.usage else None,
    }


RESPONSES_TOOLS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": TOOLS[0]["function"]["parameters"],
    }
]
RESPONSES_INPUT = [{"role": "user", "content": "What is the weather in Paris?"}]


def read_response(response):
    """What an app reads of a `response` object."""
    return {
        "id": response.id,
        "object": response.object,
        "status": response.status,
        "model": response.model,
        "incomplete_details": response.incomplete_details.model_dump() if response.incomplete_details else None,
        "output": [item.model_dump(exclude_none=True) for item in response.output],
        "output_text": response.output_text,
        "usage": response.usage.model_dump(exclude_none=True) if response.usage else None,
    }


def read_response_events(events):
    """Reads a Responses event stream the way an app does: the event types in
    order (runs of one type folded), the argument deltas per item, and the
    last lifecycle event's response."""
    types, sequence, arguments, text, final = [], [], {}, "", None
    for event in events:
        sequence.append(event.sequence_number)
        if not types or types[-1] != event.type:
            types.append(event.type)
        if event.type == "response.function_call_arguments.delta":
            arguments.setdefault(event.item_id, []).append(event.delta)
        elif event.type == "response.output_text.delta":
            text += event.delta
        elif event.type in ("response.completed", "response.incomplete", "response.failed"):
            final = event.response
    assert sequence == list(range(len(sequence))), sequence
    return {
        "types": types,
        "argument_deltas": {k: len(v) for k, v in arguments.items()},
        "text": text,
        "final": read_response(final) if final is not None else None,
        "error": final.error.model_dump() if final is not None and final.error else None,
    }


def responses_scenario(client, scenario):
    create = client.responses.create
    if scenario == "responses_stream":
        return read_response_events(create(model="m", input=RESPONSES_INPUT, tools=RESPONSES_TOOLS, stream=True))
    if scenario == "responses_helper":
        with client.responses.stream(model="m", input=RESPONSES_INPUT, tools=RESPONSES_TOOLS) as stream:
            seen = read_response_events(stream)
            seen["final_response"] = read_response(stream.get_final_response())
        return seen
    if scenario == "responses_complete":
        return read_response(create(model="m", input=RESPONSES_INPUT, tools=RESPONSES_TOOLS,
                                    instructions="You are terse.", max_output_tokens=256))
    if scenario == "responses_loop":
        first = read_response_events(create(model="m", input=RESPONSES_INPUT, tools=RESPONSES_TOOLS, stream=True))
        items = list(RESPONSES_INPUT)
        for item in first["final"]["output"]:
            if item["type"] == "reasoning":
                continue
            items.append(item)
            if item["type"] == "function_call":
                items.append({"type": "function_call_output", "call_id": item["call_id"],
                              "output": get_weather(**json.loads(item["arguments"]))})
        second = read_response(create(model="m", input=items, tools=RESPONSES_TOOLS))
        return {"first": first, "second": second}
    if scenario == "responses_error":
        try:
            create(model="m", input="Hi")
            return {"class": None}
        except openai.APIStatusError as e:
            return api_error(e)
    if scenario == "responses_stream_error":
        return read_response_events(create(model="m", input=RESPONSES_INPUT, tools=RESPONSES_TOOLS, stream=True))
    if scenario == "responses_bad_request":
        try:
            create(model="m", input="Hi", tools=[{"type": "web_search"}])
            return {"class": None}
        except openai.APIStatusError as e:
            return api_error(e)
    raise SystemExit(f"unknown scenario {scenario}")


def api_error(e):
    return {
        "class": type(e).__name__,
        "status": getattr(e, "status_code", None),
        "message": e.message,
        "body": e.body,
    }


def main():
    scenario, base_url = sys.argv[1], sys.argv[2]
    api_key = sys.argv[3] if len(sys.argv) > 3 else "sk-client"
    client = openai.OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=30)
    create = client.chat.completions.create
    if scenario.startswith("responses_"):
        out = responses_scenario(client, scenario)
    elif scenario == "stream":
        stream = create(model="m", messages=MESSAGES, tools=TOOLS, stream=True,
                        stream_options={"include_usage": True})
        out = read_stream(stream)
    elif scenario == "complete":
        out = read_completion(create(model="m", messages=MESSAGES, tools=TOOLS))
    elif scenario in ("loop", "loop_complete"):
        stream = scenario == "loop"
        read = read_stream if stream else read_completion
        messages = list(MESSAGES)
        first = read(create(model="m", messages=messages, tools=TOOLS, stream=stream))
        messages.append({
            "role": "assistant",
            "content": first["content"] or None,
            "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                for c in first["tool_calls"]
            ],
        })
        for call in first["tool_calls"]:
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": run_tool(call["name"], call["arguments"])})
        second = read(create(model="m", messages=messages, tools=TOOLS, stream=stream))
        out = {"first": first, "second": second}
    elif scenario == "error":
        try:
            create(model="m", messages=MESSAGES, tools=TOOLS)
            out = {"class": None}
        except openai.APIStatusError as e:
            out = api_error(e)
    elif scenario == "stream_error":
        content = ""
        try:
            for chunk in create(model="m", messages=MESSAGES, tools=TOOLS, stream=True):
                for choice in chunk.choices:
                    content += choice.delta.content or ""
            out = {"class": None, "content": content}
        except openai.APIError as e:
            out = api_error(e)
            out["content"] = content
    elif scenario == "bad_request":
        try:
            create(model="m", messages="not a list of messages")
            out = {"class": None}
        except openai.APIStatusError as e:
            out = api_error(e)
    elif scenario == "disconnect":
        stream = create(model="m", messages=MESSAGES, stream=True)
        first = next(iter(stream))
        stream.close()
        out = {"first": first.choices[0].delta.content}
    elif scenario == "models":
        out = {"ids": [m.id for m in client.models.list()]}
    else:
        raise SystemExit(f"unknown scenario {scenario}")
    print(json.dumps(out, ensure_ascii=False))


main()
