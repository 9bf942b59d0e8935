"""Type stubs of the extension module (src/lib.rs); checked with mypy's stubtest."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union, final


__all__ = [
    "ArgsDelta",
    "CallEnd",
    "CallStart",
    "Malformed",
    "Reasoning",
    "StreamDetector",
    "Text",
    "_noop",
    "declare",
    "dialects",
    "follow_up",
    "formats",
    "parse",
    "result_message",
]

_Json = Any
_ToolsArg = Union[Sequence[Mapping[str, Any]], Mapping[str, Any], None]
_FormatsArg = Union[str, Sequence[str]]

@final
class Text:
    """Visible text, released once it can no longer open a call."""
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> Text: ...

@final
class Reasoning:
    """Reasoning ("thinking") text, never part of the visible text."""
    @property
    def text(self) -> str: ...
    def __new__(cls, text: str) -> Reasoning: ...

@final
class CallStart:
    """A call has begun and its name is known."""
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def format(self) -> str: ...
    def __new__(cls, index: int, id: str, name: str, format: str) -> CallStart: ...

@final
class ArgsDelta:
    """The next fragment of call `index`'s arguments JSON text."""
    @property
    def index(self) -> int: ...
    @property
    def fragment(self) -> str: ...
    def __new__(cls, index: int, fragment: str) -> ArgsDelta: ...

@final
class CallEnd:
    """A complete call; `arguments` is the parsed arguments object."""
    @property
    def index(self) -> int: ...
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> dict[str, _Json]: ...
    @property
    def format(self) -> str: ...
    def __new__(
        cls,
        index: int,
        id: str,
        name: str,
        arguments: dict[str, _Json],
        format: str = "openai-chat",
    ) -> CallEnd: ...

@final
class Malformed:
    """Markup that did not become a call; its raw text was given back as Text.

    `kind` is one of "unknown_tool", "unfinished", "invalid", "limit_exceeded".
    """
    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def raw(self) -> str: ...
    @property
    def format(self) -> str: ...
    def __new__(cls, kind: str, message: str, raw: str, format: str) -> Malformed: ...

_Event = Union[Text, Reasoning, CallStart, ArgsDelta, CallEnd, Malformed]

@final
class StreamDetector:
    """Detects tool calls in a stream of text deltas, in every enabled dialect."""
    def __new__(
        cls,
        tools: _ToolsArg = None,
        formats: _FormatsArg = "auto",
        *,
        start_in_reasoning: bool = False,
        reasoning_anywhere: bool = False,
        max_call_bytes: int | None = None,
    ) -> StreamDetector: ...
    def feed(self, delta: str) -> list[_Event]: ...
    def finish(self) -> list[_Event]: ...
    @property
    def calls_started(self) -> int: ...

def parse(
    text: str,
    tools: _ToolsArg = None,
    formats: _FormatsArg = "auto",
    *,
    start_in_reasoning: bool = False,
    reasoning_anywhere: bool = False,
    max_call_bytes: int | None = None,
) -> list[_Event]: ...
def declare(tools: _ToolsArg, dialect_name: str, *, strict: bool = False) -> _Json: ...
def result_message(
    call: CallEnd | Mapping[str, Any], result: str | Mapping[str, Any], dialect_name: str
) -> list[dict[str, _Json]]: ...
def follow_up(
    calls: Iterable[CallEnd | Mapping[str, Any]],
    results: Iterable[str | Mapping[str, Any]],
    dialect_name: str,
    *,
    text: str = "",
) -> list[dict[str, _Json]]: ...
def formats() -> tuple[list[str], list[str]]: ...
def dialects() -> list[str]: ...
def _noop(delta: str) -> list[_Event]: ...
