"""toolrouter as vLLM's tool parser.

Load it with::

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin toolrouter.vllm_plugin --tool-call-parser toolrouter

`toolrouter` detects every dialect at once; `toolrouter_<format>` (for
example `toolrouter_hermes`, `toolrouter_qwen3_coder`, `toolrouter_mistral`:
the format's name with `_` for `-`, as vLLM's own parsers are named) detects
only that one. vLLM makes one parser per request; each keeps one
`toolrouter.StreamDetector`, fed `delta_text` and nothing else, so a delta
costs the same at the end of a long output as at its start, and argument
fragments (XML dialects' too) are sent as soon as they are decided.

Differences from vLLM's own parsers are listed in docs/python.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toolrouter._toolrouter import (
    ArgsDelta,
    CallEnd,
    CallStart,
    Malformed,
    Reasoning,
    StreamDetector,
    Text,
    formats,
    parse,
)

try:  # vLLM 0.12 and later
    from vllm.tool_parsers import ToolParser, ToolParserManager
except ImportError:  # pragma: no cover - older layout
    from vllm.entrypoints.openai.tool_parsers import (  # type: ignore[no-redef]
        ToolParser,
        ToolParserManager,
    )

try:
    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall,
        DeltaMessage,
        DeltaToolCall,
        ExtractedToolCallInformation,
        FunctionCall,
        ToolCall,
    )
except ImportError:  # pragma: no cover - older layout
    try:
        from vllm.entrypoints.openai.engine.protocol import (  # type: ignore[no-redef]
            DeltaFunctionCall,
            DeltaMessage,
            DeltaToolCall,
            ExtractedToolCallInformation,
            FunctionCall,
            ToolCall,
        )
    except ImportError:
        from vllm.entrypoints.openai.protocol import (  # type: ignore[no-redef]
            DeltaFunctionCall,
            DeltaMessage,
            DeltaToolCall,
            ExtractedToolCallInformation,
            FunctionCall,
            ToolCall,
        )

__all__ = ["ToolrouterToolParser", "PARSER_NAMES"]

_ALL_FORMATS, _AUTO_FORMATS = formats()
# vLLM strips reasoning with its own reasoning parser (--reasoning-parser);
# without one, `<think>` text is content, as with vLLM's tool parsers.
_TOOL_FORMATS = [f for f in _AUTO_FORMATS if f != "think"]


def _tool_dicts(tools: Sequence[Any] | None) -> list[dict[str, Any]]:
    """vLLM's tool objects (pydantic ChatCompletionToolsParam or the
    Responses API's FunctionTool) as plain dicts."""
    out: list[dict[str, Any]] = []
    for tool in tools or ():
        if hasattr(tool, "model_dump"):
            tool = tool.model_dump(exclude_none=True)
        if isinstance(tool, dict):
            out.append(tool)
    return out


class ToolrouterToolParser(ToolParser):
    """vLLM `ToolParser` over toolrouter's streaming detector."""

    #: "auto" (every dialect but `think`) or one format name.
    formats: str | list[str] = "auto"
    # Ask vLLM to call `finish_streaming` at the end of the stream: the
    # detector may hold the last few characters (a possible marker) until then.
    engine_based_streaming: bool = True

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None, **kwargs: Any):
        super().__init__(tokenizer, tools)
        self._tools: list[dict[str, Any]] = _tool_dicts(tools)
        self._detector: StreamDetector | None = None
        self._finished = False

    # -- configuration ------------------------------------------------------

    def _formats(self) -> str | list[str]:
        return _TOOL_FORMATS if self.formats == "auto" else self.formats

    def _request_tools(self, request: Any) -> list[dict[str, Any]]:
        if self._tools:
            return self._tools
        return _tool_dicts(getattr(request, "tools", None))

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if getattr(request, "tools", None) and request.tool_choice != "none":
            # Markers such as <tool_call> are special tokens in many models:
            # they must reach the parser.
            request.skip_special_tokens = False
        return request

    # -- whole output -------------------------------------------------------

    def extract_tool_calls(
        self, model_output: str, request: Any
    ) -> ExtractedToolCallInformation:
        events = parse(model_output, self._request_tools(request), self._formats())
        content: list[str] = []
        calls: list[ToolCall] = []
        for event in events:
            if isinstance(event, Text):
                content.append(event.text)
            elif isinstance(event, CallEnd):
                calls.append(
                    ToolCall(
                        id=event.id,
                        type="function",
                        function=FunctionCall(
                            name=event.name,
                            arguments=json.dumps(event.arguments, ensure_ascii=False),
                        ),
                    )
                )
        text = "".join(content)
        if calls:
            text = text.strip()
        return ExtractedToolCallInformation(
            tools_called=bool(calls), tool_calls=calls, content=text or None
        )

    # -- streaming ----------------------------------------------------------

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        detector = self._detector
        if detector is None:
            detector = self._detector = StreamDetector(
                self._request_tools(request), self._formats()
            )
        if self._finished or not delta_text:
            return None
        return self._message(detector.feed(delta_text))

    def finish_streaming(self) -> DeltaMessage | None:
        """Flushes what the detector held back at the end of the stream."""
        if self._detector is None or self._finished:
            return None
        self._finished = True
        return self._message(self._detector.finish())

    def _message(self, events: list[Any]) -> DeltaMessage | None:
        if not events:
            return None
        content: list[str] = []
        reasoning: list[str] = []
        deltas: list[DeltaToolCall] = []
        for event in events:
            if isinstance(event, ArgsDelta):
                self.streamed_args_for_tool[event.index] += event.fragment
                self.prev_tool_call_arr[event.index]["arguments"] = (
                    self.streamed_args_for_tool[event.index]
                )
                last = deltas[-1] if deltas else None
                if (
                    last is not None
                    and last.index == event.index
                    and last.function is not None
                ):
                    # One delta per call per message: join the fragments.
                    last.function.arguments = (
                        last.function.arguments or ""
                    ) + event.fragment
                else:
                    deltas.append(
                        DeltaToolCall(
                            index=event.index,
                            function=DeltaFunctionCall(arguments=event.fragment),
                        )
                    )
            elif isinstance(event, Text):
                content.append(event.text)
            elif isinstance(event, CallStart):
                while len(self.prev_tool_call_arr) <= event.index:
                    self.prev_tool_call_arr.append({})
                    self.streamed_args_for_tool.append("")
                self.prev_tool_call_arr[event.index] = {
                    "name": event.name,
                    "arguments": "",
                }
                self.current_tool_id = event.index
                self.current_tool_name_sent = True
                deltas.append(
                    DeltaToolCall(
                        index=event.index,
                        id=event.id,
                        type="function",
                        function=DeltaFunctionCall(name=event.name, arguments=""),
                    )
                )
            elif isinstance(event, CallEnd):
                self.prev_tool_call_arr[event.index]["arguments"] = (
                    self.streamed_args_for_tool[event.index]
                )
            elif isinstance(event, Reasoning):
                reasoning.append(event.text)
            elif isinstance(event, Malformed):
                # Its raw text comes back as Text events: nothing to send.
                pass
        if not content and not deltas and not reasoning:
            return None
        message = DeltaMessage(content="".join(content) or None, tool_calls=deltas)
        if reasoning:
            message.reasoning = "".join(reasoning)
        return message


def _parser_name(fmt: str) -> str:
    """The vLLM name of one format's parser: `qwen3-coder` -> `toolrouter_qwen3_coder`."""
    return "toolrouter_" + fmt.replace("-", "_")


def _parser_class(fmt: str) -> type[ToolrouterToolParser]:
    name = "Toolrouter" + "".join(p.title() for p in fmt.split("-")) + "ToolParser"
    return type(name, (ToolrouterToolParser,), {"formats": fmt, "__module__": __name__})


#: Every name this module registers with vLLM.
PARSER_NAMES: list[str] = ["toolrouter"]

ToolParserManager.register_module(["toolrouter"], module=ToolrouterToolParser)
for _fmt in _ALL_FORMATS:
    if _fmt == "think":
        continue
    _cls = _parser_class(_fmt)
    globals()[_cls.__name__] = _cls
    ToolParserManager.register_module([_parser_name(_fmt)], module=_cls)
    PARSER_NAMES.append(_parser_name(_fmt))
