"""toolrouter: streaming tool-call detection for 26 LLM dialects, and converters.

A thin layer over the Rust crate of the same name (docs/python.md):

    from toolrouter import StreamDetector, CallEnd
    detector = StreamDetector(tools)          # MCP or OpenAI tool dicts
    for delta in stream:
        for event in detector.feed(delta):
            ...
    events = detector.finish()
"""

from toolrouter._toolrouter import (
    ArgsDelta,
    CallEnd,
    CallStart,
    Malformed,
    Reasoning,
    StreamDetector,
    Text,
    declare,
    dialects,
    follow_up,
    formats,
    parse,
    result_message,
)

Event = (Text, Reasoning, CallStart, ArgsDelta, CallEnd, Malformed)

__all__ = [
    "ArgsDelta",
    "CallEnd",
    "CallStart",
    "Event",
    "Malformed",
    "Reasoning",
    "StreamDetector",
    "Text",
    "declare",
    "dialects",
    "follow_up",
    "formats",
    "parse",
    "result_message",
]
