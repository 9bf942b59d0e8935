"""Type stubs of the extension module (src/lib.rs)."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

Json = Any
ToolsArg = Union[Sequence[Mapping[str, Any]], Mapping[str, Any], None]
FormatsArg = Union[str, Sequence[str], None]

class Text:
    """Visible text, released once it can no longer open a call."""
    text: str
    def __init__(self, text: str) -> None: ...

class Reasoning:
    """Reasoning ("thinking") text, never part of the visible text."""
    text: str
    def __init__(self, text: str) -> None: ...

class CallStart:
    """A call has begun and its name is known."""
    index: int
    id: str
    name: str
    format: str
    def __init__(self, index: int, id: str, name: str, format: str) -> None: ...

class ArgsDelta:
    """The next fragment of call `index`'s arguments JSON text."""
    index: int
    fragment: str
    def __init__(self, index: int, fragment: str) -> None: ...

class CallEnd:
    """A complete call; `arguments` is the parsed arguments object."""
    index: int
    id: str
    name: str
    arguments: dict[str, Json]
    format: str
    def __init__(
        self,
        index: int,
        id: str,
        name: str,
        arguments: dict[str, Json],
        format: str = "open_ai_chat",
    ) -> None: ...

class Malformed:
    """Markup that did not become a call; its raw text was given back as Text.

    `kind` is one of "unknown_tool", "unfinished", "invalid", "limit_exceeded".
    """
    kind: str
    message: str
    raw: str
    format: str
    def __init__(self, kind: str, message: str, raw: str, format: str) -> None: ...

Event = Union[Text, Reasoning, CallStart, ArgsDelta, CallEnd, Malformed]

class StreamDetector:
    """Detects tool calls in a stream of text deltas, in every enabled dialect."""
    def __init__(
        self,
        tools: ToolsArg = None,
        formats: FormatsArg = "auto",
        *,
        start_in_reasoning: bool = False,
        reasoning_anywhere: bool = False,
        max_call_bytes: int | None = None,
    ) -> None: ...
    def feed(self, delta: str) -> list[Event]: ...
    def finish(self) -> list[Event]: ...
    @property
    def calls_started(self) -> int: ...

def parse(
    text: str,
    tools: ToolsArg = None,
    formats: FormatsArg = "auto",
    *,
    start_in_reasoning: bool = False,
    reasoning_anywhere: bool = False,
    max_call_bytes: int | None = None,
) -> list[Event]: ...
def declare(tools: ToolsArg, dialect_name: str, *, strict: bool = False) -> Json: ...
def result_message(
    call: CallEnd | Mapping[str, Any], result: str | Mapping[str, Any], dialect_name: str
) -> list[dict[str, Json]]: ...
def follow_up(
    calls: Iterable[CallEnd | Mapping[str, Any]],
    results: Iterable[str | Mapping[str, Any]],
    dialect_name: str,
    *,
    text: str = "",
) -> list[dict[str, Json]]: ...
def formats() -> tuple[list[str], list[str]]: ...
def dialects() -> list[str]: ...
def _noop(delta: str) -> list[Event]: ...
