"""The Python API: events, parse, converters, errors. Expectations are
written by hand from the formats' definitions (docs/formats.md)."""

import json
import re
import sys
import threading
import time

import pytest

import toolrouter
from toolrouter import (
    ArgsDelta,
    CallEnd,
    CallStart,
    Malformed,
    Reasoning,
    StreamDetector,
    Text,
    declare,
    follow_up,
    parse,
    result_message,
)

WEATHER = {
    "name": "get_weather",
    "description": "Current weather",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
}
OPENAI_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather",
        "parameters": WEATHER["inputSchema"],
    },
}

HERMES = 'Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def run(text, tools=(WEATHER,), step=1, **kw):
    d = StreamDetector(list(tools), **kw)
    events = []
    for i in range(0, len(text), step):
        events += d.feed(text[i : i + step])
    events += d.finish()
    return events


def summary(events):
    text = "".join(e.text for e in events if isinstance(e, Text))
    calls = [(e.name, e.arguments) for e in events if isinstance(e, CallEnd)]
    return text, calls


@pytest.mark.parametrize("step", [1, 2, 3, 4, 7, 1000])
def test_hermes_call_any_split(step):
    events = run(HERMES, step=step)
    assert summary(events) == ("Sure.", [("get_weather", {"city": "Paris"})])
    starts = [e for e in events if isinstance(e, CallStart)]
    assert len(starts) == 1
    assert (starts[0].index, starts[0].name, starts[0].format) == (0, "get_weather", "hermes")
    args = "".join(e.fragment for e in events if isinstance(e, ArgsDelta))
    assert json.loads(args) == {"city": "Paris"}
    end = [e for e in events if isinstance(e, CallEnd)][0]
    assert end.id == starts[0].id and end.index == 0


def test_openai_tool_dicts_and_tools_list_result():
    assert summary(run(HERMES, tools=[OPENAI_WEATHER]))[1] == [
        ("get_weather", {"city": "Paris"})
    ]
    events = parse(HERMES, {"tools": [WEATHER]})
    assert summary(events)[1] == [("get_weather", {"city": "Paris"})]


def test_qwen3_coder_streams_arguments_before_the_call_ends():
    text = (
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
    )
    d = StreamDetector([WEATHER])
    fragments = []
    ended_before_last_tag = False
    for i in range(0, len(text), 4):
        for e in d.feed(text[i : i + 4]):
            if isinstance(e, ArgsDelta):
                fragments.append((i, e.fragment))
            if isinstance(e, CallEnd):
                ended_before_last_tag = True
    d.finish()
    # Some argument text was out before `</function>` was read.
    assert fragments and fragments[0][0] < text.index("</function>")
    assert json.loads("".join(f for _, f in fragments)) == {"city": "New York", "days": 3}
    assert ended_before_last_tag


def test_unknown_tool_is_text_with_a_diagnostic():
    text = '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'
    events = parse(text, [WEATHER])
    assert "".join(e.text for e in events if isinstance(e, Text)) == text
    (m,) = [e for e in events if isinstance(e, Malformed)]
    assert m.kind == "unknown_tool" and m.raw == text and m.format == "hermes"
    assert "nope" in m.message


def test_unfinished_call_reported_at_finish():
    events = run('<tool_call>{"name": "get_weather", "arguments": {"city": "Pa')
    kinds = [e.kind for e in events if isinstance(e, Malformed)]
    assert kinds == ["unfinished"]
    assert not [e for e in events if isinstance(e, CallEnd)]


def test_reasoning_event():
    events = parse("<think>hmm</think>Hello", [WEATHER])
    assert "".join(e.text for e in events if isinstance(e, Reasoning)) == "hmm"
    assert "".join(e.text for e in events if isinstance(e, Text)) == "Hello"


def test_one_format_only():
    # With only Qwen3-Coder on, Hermes markup is text.
    events = parse(HERMES, [WEATHER], "qwen3_coder")
    assert summary(events) == (HERMES, [])
    events = parse(HERMES, [WEATHER], ["hermes", "mistral"])
    assert summary(events)[1] == [("get_weather", {"city": "Paris"})]


def test_errors_carry_the_rust_messages():
    with pytest.raises(ValueError, match="unknown wire format `hermez`"):
        StreamDetector([WEATHER], "hermez")
    with pytest.raises(ValueError, match=r"unknown dialect `nope`; dialects: openai-chat, "):
        declare([WEATHER], "nope")
    with pytest.raises(ValueError, match="tool 0 has no name"):
        StreamDetector([{"description": "x"}])
    with pytest.raises(TypeError):
        StreamDetector("not a list")
    with pytest.raises(TypeError):
        StreamDetector([WEATHER], 5)
    with pytest.raises(ValueError, match="structured API format"):
        StreamDetector([WEATHER], "open_ai_chat")
    d = StreamDetector([WEATHER])
    d.finish()
    with pytest.raises(ValueError, match="feed after finish"):
        d.feed("x")


def test_event_classes():
    assert Text("a") == Text("a") and Text("a") != Text("b")
    assert repr(ArgsDelta(0, '{"')) == 'ArgsDelta(index=0, fragment="{\\"")'
    a = CallEnd(1, "c1", "f", {"x": [1, 2]})
    assert a == CallEnd(1, "c1", "f", {"x": [1, 2]})
    assert a != CallEnd(1, "c1", "f", {"x": [1]})
    assert toolrouter.Event == (Text, Reasoning, CallStart, ArgsDelta, CallEnd, Malformed)


def test_events_stay_immutable_values():
    # Events are read-only values (feed refills only the list it returned
    # last, never an event).
    for event, attr in ((Text("a"), "text"), (ArgsDelta(0, "{"), "fragment"), (Reasoning("r"), "text")):
        with pytest.raises(AttributeError):
            setattr(event, attr, "x")
        with pytest.raises(AttributeError):
            event.other = 1
    assert ArgsDelta(1, "x") == ArgsDelta(1, "x") and ArgsDelta(1, "x") != ArgsDelta(2, "x")
    assert repr(Text("a")) == 'Text("a")'


ARGS_STREAM = (
    'Hi <tool_call>{"name": "get_weather", "arguments": {"city": "Paris, France", '
    '"days": 3}}</tool_call> bye'
)


def norm(events):
    # Call ids are random: compare the events' reprs without them.
    return [re.sub(r'id="call_\w+"', "id", repr(e)) for e in events]


def test_feed_results_kept_or_dropped_are_the_same():
    expected = run(ARGS_STREAM, step=2)
    assert len([e for e in expected if isinstance(e, ArgsDelta)]) > 3

    # Every list kept: no later feed may change an earlier list or event.
    d = StreamDetector([WEATHER])
    lists = [d.feed(ARGS_STREAM[i : i + 2]) for i in range(0, len(ARGS_STREAM), 2)]
    assert norm([e for l in lists for e in l] + d.finish()) == norm(expected)
    assert len({id(l) for l in lists}) == len(lists)

    # Lists dropped, events kept (repr taken at once, compared at the end).
    d = StreamDetector([WEATHER])
    kept, reprs = [], []
    for i in range(0, len(ARGS_STREAM), 2):
        for e in d.feed(ARGS_STREAM[i : i + 2]):
            kept.append(e)
            reprs.append(repr(e))
    kept += d.finish()
    assert norm(kept) == norm(expected) and [repr(e) for e in kept[: len(reprs)]] == reprs

    # Lists and events dropped at once: what each feed returned, when it returned it.
    d = StreamDetector([WEATHER])
    seen = []
    for i in range(0, len(ARGS_STREAM), 2):
        seen += [repr(e) for e in d.feed(ARGS_STREAM[i : i + 2])]
    assert [re.sub(r'id="call_\w+"', "id", r) for r in seen] + norm(d.finish()) == norm(expected)

    # Lists the caller changed before letting go of them, events it kept.
    d = StreamDetector([WEATHER])
    seen = []
    held = None
    for n, i in enumerate(range(0, len(ARGS_STREAM), 2)):
        got = d.feed(ARGS_STREAM[i : i + 2])
        seen += got
        if n % 3 == 0 and got:
            held = got[0]
            got[0] = "replaced"
        elif n % 3 == 1:
            got.append("extra")
        del got
    assert norm(seen + d.finish()) == norm(expected)
    assert isinstance(held, (Text, ArgsDelta)) and norm([held])[0] in norm(expected)


def test_reasoning_results_kept_or_dropped_are_the_same():
    text = "<think>step one, step two</think>Answer: 4"
    d = StreamDetector([WEATHER])
    lists = [d.feed(text[i : i + 3]) for i in range(0, len(text), 3)]
    lists.append(d.finish())
    kept = [e for l in lists for e in l]
    d = StreamDetector([WEATHER])
    seen = [repr(e) for i in range(0, len(text), 3) for e in d.feed(text[i : i + 3])]
    seen += [repr(e) for e in d.finish()]
    assert seen == [repr(e) for e in kept]
    assert "".join(e.text for e in kept if isinstance(e, Reasoning)) == "step one, step two"
    assert "".join(e.text for e in kept if isinstance(e, Text)) == "Answer: 4"


def test_detector_in_its_own_result_is_collected():
    import gc
    import weakref

    class Holder:
        pass

    d = StreamDetector([WEATHER])
    got = []
    for i in range(0, 40, 2):
        got = d.feed(ARGS_STREAM[i : i + 2]) or got
    h = Holder()
    h.d = d
    got.append(h)
    probe = weakref.ref(h)
    del d, h, got
    gc.collect()
    assert probe() is None


def test_arguments_json_types_round_trip():
    text = (
        '<tool_call>{"name": "get_weather", "arguments": '
        '{"city": "Zürich", "days": 2, "f": 1.5, "ok": true, "n": null, "l": [1, "a"]}}</tool_call>'
    )
    (end,) = [e for e in parse(text, [WEATHER]) if isinstance(e, CallEnd)]
    assert end.arguments == {
        "city": "Zürich", "days": 2, "f": 1.5, "ok": True, "n": None, "l": [1, "a"],
    }


def test_declare_in_three_dialects():
    openai = declare([WEATHER], "open_ai_chat")
    assert openai[0]["type"] == "function"
    assert openai[0]["function"]["name"] == "get_weather"
    assert openai[0]["function"]["parameters"]["properties"]["city"] == {"type": "string"}
    anthropic = declare([OPENAI_WEATHER], "anthropic")
    assert anthropic[0]["name"] == "get_weather"
    assert anthropic[0]["input_schema"]["required"] == ["city"]
    gemini = declare([WEATHER], "gemini")
    decl = gemini[0]["functionDeclarations"][0]
    assert decl["name"] == "get_weather" and decl["parameters"]["type"] == "OBJECT"
    prompt = declare([WEATHER], "xml_text")
    assert isinstance(prompt, str) and "get_weather" in prompt


def test_result_message_and_follow_up():
    (end,) = [e for e in parse(HERMES, [WEATHER]) if isinstance(e, CallEnd)]
    msgs = result_message(end, "18 °C", "open_ai_chat")
    assert msgs == [{"role": "tool", "tool_call_id": end.id, "content": "18 °C"}]
    err = {"content": [{"type": "text", "text": "no such city"}], "isError": True}
    msgs = result_message({"id": "toolu_1", "name": "get_weather", "arguments": {}}, err, "anthropic")
    (block,) = msgs[0]["content"]
    assert msgs[0]["role"] == "user"
    assert block["type"] == "tool_result" and block["tool_use_id"] == "toolu_1"
    assert block["is_error"] is True
    turn = follow_up([end], ["18 °C"], "open_ai_chat", text="Sure.")
    assert turn[0]["role"] == "assistant" and turn[0]["content"] == "Sure."
    (tc,) = turn[0]["tool_calls"]
    assert tc["id"] == end.id and tc["function"]["name"] == "get_weather"
    assert json.loads(tc["function"]["arguments"]) == {"city": "Paris"}
    assert turn[1] == {"role": "tool", "tool_call_id": end.id, "content": "18 °C"}
    with pytest.raises(ValueError, match="1 calls but 0 results"):
        follow_up([end], [], "open_ai_chat")


def test_large_feed_releases_the_gil():
    """Another thread runs while a large delta is fed, and not while small ones are.

    With a switch interval of 100 s the interpreter never takes the GIL away
    from the main thread; the spinner (which gives the GIL back on every turn)
    only runs when the main thread lets go of it, as `feed` does for deltas of
    16 KiB or more.
    """
    body = "x" * (4 << 20)
    big = '<tool_call>{"name": "get_weather", "arguments": {"city": "' + body + '"}}</tool_call>'
    ticks = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    t = threading.Thread(target=spin)
    t.start()
    sys.setswitchinterval(100)
    try:
        d = StreamDetector([WEATHER])
        before = ticks[0]
        for i in range(0, 64 * 1024, 8 * 1024):  # below the threshold: the GIL is kept
            d.feed("y" * (8 * 1024))
        small_ticks = ticks[0] - before
        before = ticks[0]
        events = d.feed(big) + d.feed("\n")
        big_ticks = ticks[0] - before
    finally:
        sys.setswitchinterval(old)
        stop.set()
        t.join()
    assert small_ticks == 0
    assert big_ticks > 0
    assert [e.name for e in events if isinstance(e, CallEnd)] == ["get_weather"]


def test_typing_files_are_installed():
    from importlib.resources import files

    package = files("toolrouter")
    assert package.joinpath("py.typed").is_file()
    assert package.joinpath("_toolrouter.pyi").is_file()
