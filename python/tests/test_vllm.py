"""The vLLM tool-parser plugin against the installed vLLM package.

The vectors (model outputs and the calls and content vLLM's tests expect)
are transcribed from vLLM's own tests, Apache-2.0, copyright contributors to
the vLLM project: tests/tool_parsers/test_hermes_tool_parser.py,
test_qwen3coder_tool_parser.py and test_mistral_tool_parser.py. vLLM's tests
construct their parsers without tools; toolrouter only reports calls to
declared tools, so each request here declares the tools its vector calls.
Mistral's v11 vectors are written with the `[ARGS]` token that the model
emits (vLLM's test text is decoded with special tokens skipped).

Each vector is checked whole (`extract_tool_calls`) and streamed in deltas
of 1, 2, 3, 5 and 8 characters (the way vLLM's stream_interval tests batch
tokens), and, where vLLM's own parser runs with a stand-in tokenizer,
against that parser on the same input.
"""

import json

import pytest

vllm = pytest.importorskip("vllm")

from vllm.entrypoints.openai.chat_completion.protocol import (  # noqa: E402
    ChatCompletionRequest,
)
from vllm.tool_parsers import ToolParserManager  # noqa: E402

ToolParserManager.import_tool_parser("toolrouter.vllm_plugin")


class StandInTokenizer:
    """What the parsers read of a tokenizer: its vocabulary's special tokens."""

    vocab = {
        "<tool_call>": 1, "</tool_call>": 2, "[TOOL_CALLS]": 3, "[ARGS]": 4,
        "[CALL_ID]": 5, "<think>": 6, "</think>": 7,
    }

    def get_vocab(self):
        return self.vocab

    def encode(self, text, **kw):
        return []

    def decode(self, ids, **kw):
        return ""

    def convert_tokens_to_ids(self, token):
        return self.vocab.get(token)

    def __len__(self):
        return 100

    all_special_tokens: list = []


TOKENIZER = StandInTokenizer()
OBJ = {"type": "object"}


def tool(name, params=None):
    return {"type": "function", "function": {"name": name, "parameters": params or OBJ}}


WEATHER_PARAMS = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "state": {"type": "string"},
        "unit": {"type": "string", "enum": ["fahrenheit", "celsius"]},
    },
    "required": ["city", "state"],
}
AREA_PARAMS = {
    "type": "object",
    "properties": {
        "shape": {"type": "string"},
        "dimensions": {"type": "object"},
        "precision": {"type": "integer"},
    },
}
TEMP_PARAMS = {
    "type": "object",
    "properties": {"location": {"type": "string"}, "unit": {"type": "string"}},
}
QWEN_TOOLS = [tool("get_current_weather", WEATHER_PARAMS), tool("calculate_area", AREA_PARAMS)]
MISTRAL_TOOLS = [
    tool("add", {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}),
    tool("add_this_and_that"), tool("multiply"), tool("get_current_weather", WEATHER_PARAMS),
    tool("get_age"),
]

Q_DALLAS = (
    "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n</parameter>\n"
    "<parameter=state>\nTX\n</parameter>\n<parameter=unit>\nfahrenheit\n</parameter>\n"
    "</function>\n</tool_call>"
)
Q_ORLANDO = Q_DALLAS.replace("Dallas", "Orlando").replace("TX", "FL")
DALLAS = {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}
SF = {"city": "San Francisco", "state": "CA", "unit": "celsius"}

# (parser family, tools, model output, expected calls [(name, args)], expected content)
VECTORS = [
    # test_hermes_tool_parser.py
    ("hermes", [tool("final_answer")],
     '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
     [("final_answer", {"trigger": True})], None),
    ("hermes", [tool("get_current_temperature", TEMP_PARAMS)],
     '<tool_call>{"name": "get_current_temperature","arguments": {"location":'
     '"San Francisco, California, United States", "unit": "celsius"}}</tool_call>',
     [("get_current_temperature",
       {"location": "San Francisco, California, United States", "unit": "celsius"})], None),
    ("hermes", [tool("get_weather")],
     'Sure, let me check the weather.<tool_call>{"name": "get_weather", '
     '"arguments": {"city": "NYC"}}</tool_call>',
     [("get_weather", {"city": "NYC"})], "Sure, let me check the weather."),
    ("hermes", [tool("search")],
     '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>'
     '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>',
     [("search", {"q": "cats"}), ("search", {"q": "dogs"})], None),
    ("hermes", [tool("final_answer")],
     "This is plain text with no tool calling involved.", [],
     "This is plain text with no tool calling involved."),
    ("hermes", [tool("final_answer")],
     "This is some prior text that has nothing to do with tool calling.", [],
     "This is some prior text that has nothing to do with tool calling."),
    # test_hermes_parser_non_streaming_tool_call_until_eos: no closing tag.
    ("hermes", [tool("final_answer")],
     '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}',
     [("final_answer", {"trigger": True})], None),
    # test_qwen3coder_tool_parser.py
    ("qwen3_coder", QWEN_TOOLS, Q_DALLAS, [("get_current_weather", DALLAS)], None),
    ("qwen3_coder", QWEN_TOOLS, "Sure! Let me check the weather for you." + Q_DALLAS,
     [("get_current_weather", DALLAS)], "Sure! Let me check the weather for you."),
    ("qwen3_coder", QWEN_TOOLS,
     "<tool_call>\n<function=calculate_area>\n<parameter=shape>\nrectangle\n</parameter>\n"
     '<parameter=dimensions>\n{"width": 10, \n "height": 20}\n</parameter>\n'
     "<parameter=precision>\n2\n</parameter>\n</function>\n</tool_call>",
     [("calculate_area",
       {"shape": "rectangle", "dimensions": {"width": 10, "height": 20}, "precision": 2})],
     None),
    ("qwen3_coder", QWEN_TOOLS, Q_DALLAS + "\n" + Q_ORLANDO,
     [("get_current_weather", DALLAS),
      ("get_current_weather", {"city": "Orlando", "state": "FL", "unit": "fahrenheit"})],
     None),
    ("qwen3_coder", QWEN_TOOLS,
     "Let me calculate that area for you.<tool_call>\n<function=calculate_area>\n"
     '<parameter=shape>\ncircle\n</parameter>\n<parameter=dimensions>\n{"radius": 15.5}\n'
     "</parameter>\n<parameter=precision>\n3\n</parameter>\n</function>\n</tool_call>",
     [("calculate_area", {"shape": "circle", "dimensions": {"radius": 15.5}, "precision": 3})],
     "Let me calculate that area for you."),
    ("qwen3_coder", QWEN_TOOLS, "This is a test response without any tool calls", [],
     "This is a test response without any tool calls"),
    # test_mistral_tool_parser.py, before tokenizer v11
    ("mistral", MISTRAL_TOOLS, '[TOOL_CALLS][{"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
     [("add", {"a": 3.5, "b": 4})], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS] [{"name": "get_current_weather", "arguments":{"city": "San Francisco", '
     '"state": "CA", "unit": "celsius"}}]',
     [("get_current_weather", SF)], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS] [{"arguments":{"city": "San Francisco", "state": "CA", "unit": "celsius"}, '
     '"name": "get_current_weather"}]',
     [("get_current_weather", SF)], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}]',
     [("get_age", {"name": "John Doe"})], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 3.5, "b": 4}}, {"name": '
     '"get_current_weather", "arguments":{"city": "San Francisco", "state": "CA", '
     '"unit": "celsius"}}]',
     [("add", {"a": 3.5, "b": 4}), ("get_current_weather", SF)], None),
    ("mistral", MISTRAL_TOOLS, 'Hello[TOOL_CALLS] [{"name": "add", "arguments":{"a": 1, "b": 2}}]',
     [("add", {"a": 1, "b": 2})], "Hello"),
    ("mistral", MISTRAL_TOOLS, "This is a test", [], "This is a test"),
    # test_mistral_tool_parser.py, tokenizer v11 and later
    ("mistral", MISTRAL_TOOLS, '[TOOL_CALLS]add_this_and_that[ARGS]{"a": 3.5, "b": 4}',
     [("add_this_and_that", {"a": 3.5, "b": 4})], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS]get_current_weather[ARGS]{"city": "San Francisco", "state": "CA", '
     '"unit": "celsius"}',
     [("get_current_weather", SF)], None),
    ("mistral", MISTRAL_TOOLS,
     '[TOOL_CALLS]add[ARGS]{"a": 3.5, "b": 4}[TOOL_CALLS]multiply[ARGS]{"a": 3, "b": 6}',
     [("add", {"a": 3.5, "b": 4}), ("multiply", {"a": 3, "b": 6})], None),
]
IDS = [f"{v[0]}-{i}" for i, v in enumerate(VECTORS)]


def request(tools):
    return ChatCompletionRequest(model="m", messages=[], tools=tools)


def whole(parser, text, req):
    info = parser.extract_tool_calls(text, req)
    calls = [(c.function.name, json.loads(c.function.arguments)) for c in info.tool_calls]
    assert info.tools_called == bool(calls)
    return calls, info.content


def streamed(parser, text, req, step):
    """Feeds `text` in `step`-character deltas as vLLM's serving layer does,
    then flushes; returns the calls assembled from the deltas and the content."""
    previous = ""
    messages = []
    for i in range(0, len(text), step):
        delta = text[i : i + step]
        current = previous + delta
        m = parser.extract_tool_calls_streaming(previous, current, delta, [], [], [], req)
        if m is not None:
            messages.append(m)
        previous = current
    finish = getattr(parser, "finish_streaming", None)
    if finish is not None:
        m = finish()
        if m is not None:
            messages.append(m)
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    ids: dict[int, str] = {}
    for m in messages:
        for tc in m.tool_calls or []:
            fn = tc.function
            if isinstance(fn, dict):  # some vLLM parsers send dumped dicts
                name, arguments = fn.get("name"), fn.get("arguments")
            else:
                name, arguments = (fn.name, fn.arguments) if fn else (None, None)
            if tc.id:
                assert tc.index not in ids, "a call started twice"
                ids[tc.index] = tc.id
            if name:
                names[tc.index] = name
            args[tc.index] = args.get(tc.index, "") + (arguments or "")
    calls = [(names[i], json.loads(args[i])) for i in sorted(names)]
    content = "".join(m.content or "" for m in messages)
    return calls, content


def ours(family):
    return ToolParserManager.get_tool_parser(f"toolrouter_{family}")


def test_registered_names():
    for name in ("toolrouter", "toolrouter_hermes", "toolrouter_qwen3_coder", "toolrouter_mistral"):
        cls = ToolParserManager.get_tool_parser(name)
        assert issubclass(cls, vllm.tool_parsers.ToolParser)
    from toolrouter import formats
    from toolrouter.vllm_plugin import PARSER_NAMES

    every = formats()[0]
    assert "think" in every and "hermes" in every
    # One name per call dialect (`think` is reasoning, not a call dialect).
    assert sorted(PARSER_NAMES) == sorted(
        ["toolrouter"] + [f"toolrouter_{f.replace('-', '_')}" for f in every if f != "think"]
    )


@pytest.mark.parametrize("generic", [False, True], ids=["dialect", "auto"])
@pytest.mark.parametrize("family,tools,text,calls,content", VECTORS, ids=IDS)
def test_vector_whole(family, tools, text, calls, content, generic):
    cls = ToolParserManager.get_tool_parser("toolrouter" if generic else f"toolrouter_{family}")
    req = request(tools)
    assert whole(cls(TOKENIZER, req.tools), text, req) == (calls, content)


@pytest.mark.parametrize("step", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("family,tools,text,calls,content", VECTORS, ids=IDS)
def test_vector_streamed(family, tools, text, calls, content, step):
    req = request(tools)
    got_calls, got_content = streamed(ours(family)(TOKENIZER, req.tools), text, req, step)
    assert got_calls == calls
    # Streamed content is every non-call character, whitespace between calls included.
    assert got_content.strip() == (content or "")


def _vllm_runs(family, text):
    # vLLM's Mistral engine reads the pre-v11 array form only with a pre-v11
    # tokenizer, which cannot be stood in for: those vectors are checked
    # against the transcribed expectations alone.
    return not (family == "mistral" and "[ARGS]" not in text and "[TOOL_CALLS]" in text)


@pytest.mark.parametrize("family,tools,text,calls,content", VECTORS, ids=IDS)
def test_same_as_vllms_own_parser(family, tools, text, calls, content):
    if not _vllm_runs(family, text):
        pytest.skip("needs a pre-v11 Mistral tokenizer")
    req = request(tools)
    theirs_cls = ToolParserManager.get_tool_parser(family)
    theirs = whole(theirs_cls(TOKENIZER, req.tools), text, req)
    mine = whole(ours(family)(TOKENIZER, req.tools), text, req)
    assert mine[0] == theirs[0]
    assert (mine[1] or "").strip() == (theirs[1] or "").strip()
    for step in (1, 4):
        theirs = streamed(theirs_cls(TOKENIZER, req.tools), text, req, step)
        mine = streamed(ours(family)(TOKENIZER, req.tools), text, req, step)
        assert mine[0] == theirs[0]
        assert mine[1].strip() == theirs[1].strip()


def test_xml_arguments_stream_before_the_call_closes():
    req = request(QWEN_TOOLS)
    parser = ours("qwen3_coder")(TOKENIZER, req.tools)
    previous = ""
    first_args_at = None
    for i in range(0, len(Q_DALLAS), 4):
        delta = Q_DALLAS[i : i + 4]
        m = parser.extract_tool_calls_streaming(previous, previous + delta, delta, [], [], [], req)
        previous += delta
        if m and any(tc.function and tc.function.arguments for tc in m.tool_calls):
            first_args_at = first_args_at if first_args_at is not None else i
    assert first_args_at is not None and first_args_at < Q_DALLAS.index("<parameter=state>")


def test_hermes_invalid_json_is_not_a_call():
    # test_hermes_parser_non_streaming_tool_call_invalid_json: the closing brace is missing.
    text = '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}'
    req = request([tool("final_answer")])
    info = ours("hermes")(TOKENIZER, req.tools).extract_tool_calls(text, req)
    assert not info.tools_called and info.tool_calls == []
    assert info.content == text


def test_undeclared_tool_is_content():
    req = request([tool("other")])
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>'
    assert whole(ours("hermes")(TOKENIZER, req.tools), text, req) == ([], text)
    assert streamed(ours("hermes")(TOKENIZER, req.tools), text, req, 3) == ([], text)


def test_tools_from_the_request_when_the_parser_has_none():
    req = request([tool("get_weather")])
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "NYC"}}</tool_call>'
    assert whole(ours("hermes")(TOKENIZER), text, req)[0] == [("get_weather", {"city": "NYC"})]
    assert streamed(ours("hermes")(TOKENIZER), text, req, 2)[0] == [
        ("get_weather", {"city": "NYC"})
    ]


def test_adjust_request_keeps_special_tokens():
    req = request([tool("get_weather")])
    parser = ours("hermes")(TOKENIZER, req.tools)
    assert parser.adjust_request(req).skip_special_tokens is False


@pytest.mark.parametrize("name", ["toolrouter", "toolrouter_qwen3_coder"])
def test_through_vllms_serving_parser(name):
    """The plugin inside vLLM's own request parser (what `vllm serve` runs per
    request), streamed and whole, with the end-of-stream flush."""
    from vllm.parser.parser_manager import ParserManager

    cls = ParserManager.get_parser(tool_parser_name=name, enable_auto_tools=True)
    text = "Sure! Let me check the weather for you." + Q_DALLAS
    req = ChatCompletionRequest(model="m", messages=[], tools=QWEN_TOOLS, tool_choice="auto")

    reasoning, content, calls = cls(TOKENIZER, req.tools).parse(text, req, enable_auto_tools=True)
    assert reasoning is None
    assert content == "Sure! Let me check the weather for you."
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_current_weather", DALLAS)]

    parser = cls(TOKENIZER, req.tools)
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    messages = []
    for i, piece in enumerate(pieces):
        m = parser.parse_delta(piece, [], req, prompt_token_ids=[], finished=i == len(pieces) - 1)
        if m is not None:
            messages.append(m)
    streamed_content = "".join(m.content or "" for m in messages)
    tool_deltas = [tc for m in messages for tc in m.tool_calls or []]
    assert streamed_content.strip() == "Sure! Let me check the weather for you."
    assert [tc.function.name for tc in tool_deltas if tc.id] == ["get_current_weather"]
    args = "".join(tc.function.arguments or "" for tc in tool_deltas)
    assert json.loads(args) == DALLAS


@pytest.mark.parametrize("name", ["toolrouter", "toolrouter_hermes", "toolrouter_mistral"])
def test_vllm_serve_flags_accept_the_plugin(name):
    """What `vllm serve --enable-auto-tool-choice --tool-parser-plugin
    toolrouter.vllm_plugin --tool-call-parser NAME` runs before serving:
    the plugin import, the name check, and the parser's startup check
    against the model's tokenizer."""
    from types import SimpleNamespace

    from vllm.entrypoints.common.cli_args import init_parser_plugin, validate_api_server_args
    from vllm.parser.parser_manager import ParserManager

    args = SimpleNamespace(
        tool_parser_plugin="toolrouter.vllm_plugin",
        reasoning_parser_plugin="",
        enable_auto_tool_choice=True,
        tool_call_parser=name,
        structured_outputs_config=SimpleNamespace(reasoning_parser=None),
    )
    init_parser_plugin(args)
    validate_api_server_args(args)
    cls = ParserManager.get_parser(
        tool_parser_name=name, enable_auto_tools=True, model_name="m", tokenizer=TOKENIZER
    )
    assert cls is not None and issubclass(cls.tool_parser_cls, ToolParserManager.get_tool_parser(name))

    args.tool_call_parser = "toolrouter_nope"
    with pytest.raises(KeyError, match="invalid tool call parser"):
        validate_api_server_args(args)
