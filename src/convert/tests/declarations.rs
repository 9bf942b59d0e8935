//! Declarations whose schema passes through unchanged: OpenAI Chat (tools and
//! legacy functions), Responses, Anthropic, Bedrock, Ollama.

use serde_json::json;

use super::*;
use crate::convert::{Dialect, anthropic, bedrock, ollama, openai_chat, openai_responses};
use toolrouter_providers::Wire;

#[test]
fn openai_chat_tools_wrap_each_function() {
    check(
        &openai_chat::tools(&three_tools()),
        json!([
            {"type": "function", "function": {
                "name": "read_file", "description": "Read a file.", "parameters": read_file_schema()}},
            {"type": "function", "function": {
                "name": "create_issue", "description": "Open an issue.", "parameters": create_issue_schema()}},
            {"type": "function", "function": {
                "name": "get_time", "description": "Current time", "parameters": {"type": "object"}}}
        ]),
    );
}

#[test]
fn openai_legacy_functions_are_bare() {
    check(
        &openai_chat::functions(&three_tools()),
        json!([
            {"name": "read_file", "description": "Read a file.", "parameters": read_file_schema()},
            {"name": "create_issue", "description": "Open an issue.", "parameters": create_issue_schema()},
            {"name": "get_time", "description": "Current time", "parameters": {"type": "object"}}
        ]),
    );
}

#[test]
fn responses_tools_are_flat_and_say_strict_false() {
    check(
        &openai_responses::tools(&three_tools()),
        json!([
            {"type": "function", "name": "read_file", "description": "Read a file.",
             "parameters": read_file_schema(), "strict": false},
            {"type": "function", "name": "create_issue", "description": "Open an issue.",
             "parameters": create_issue_schema(), "strict": false},
            {"type": "function", "name": "get_time", "description": "Current time",
             "parameters": {"type": "object"}, "strict": false}
        ]),
    );
}

#[test]
fn anthropic_tools_use_input_schema() {
    check(
        &anthropic::tools(&three_tools()),
        json!([
            {"name": "read_file", "description": "Read a file.", "input_schema": read_file_schema()},
            {"name": "create_issue", "description": "Open an issue.", "input_schema": create_issue_schema()},
            {"name": "get_time", "description": "Current time", "input_schema": {"type": "object"}}
        ]),
    );
}

#[test]
fn bedrock_tools_are_tool_specs_with_json_schema() {
    check(
        &bedrock::tools(&three_tools()),
        json!([
            {"toolSpec": {"name": "read_file", "description": "Read a file.",
                          "inputSchema": {"json": read_file_schema()}}},
            {"toolSpec": {"name": "create_issue", "description": "Open an issue.",
                          "inputSchema": {"json": create_issue_schema()}}},
            {"toolSpec": {"name": "get_time", "description": "Current time",
                          "inputSchema": {"json": {"type": "object"}}}}
        ]),
    );
}

#[test]
fn ollama_tools_follow_the_openai_shape() {
    check(
        &ollama::tools(&three_tools()),
        json!([
            {"type": "function", "function": {
                "name": "read_file", "description": "Read a file.", "parameters": read_file_schema()}},
            {"type": "function", "function": {
                "name": "create_issue", "description": "Open an issue.", "parameters": create_issue_schema()}},
            {"type": "function", "function": {
                "name": "get_time", "description": "Current time", "parameters": {"type": "object"}}}
        ]),
    );
}

#[test]
fn a_tool_without_description_or_title_has_no_description_field() {
    let bare = tool(json!({"name": "ping", "inputSchema": {"type": "object"}}));
    check(
        &anthropic::tools(&[bare]),
        json!([{"name": "ping", "input_schema": {"type": "object"}}]),
    );
}

#[test]
fn dialect_names_round_trip_and_formats_map_to_dialects() {
    for &d in Dialect::ALL {
        assert_eq!(d.as_str().parse::<Dialect>(), Ok(d));
        for alias in d.aliases() {
            assert_eq!(alias.parse::<Dialect>(), Ok(d));
        }
    }
    // One spelling, the provider wires' own; the older ones still parse.
    assert_eq!(
        Dialect::OpenAiChat.as_str(),
        Dialect::for_wire(Wire::OpenAiChat).as_str()
    );
    assert_eq!(Dialect::OpenAiChat.as_str(), Wire::OpenAiChat.as_str());
    assert_eq!(
        Dialect::OpenAiResponses.as_str(),
        Wire::OpenAiResponses.as_str()
    );
    assert_eq!("open_ai_chat".parse(), Ok(Dialect::OpenAiChat));
    assert_eq!("xml_text".parse(), Ok(Dialect::XmlText));
    let unknown = "openai".parse::<Dialect>().unwrap_err();
    assert_eq!(unknown.kind, "dialect");
    assert_eq!(unknown.known.len(), Dialect::ALL.len());
    assert!(unknown.suggestions.contains(&"openai-chat"), "{unknown}");
    assert_eq!(Dialect::for_format(WireFormat::Gemini), Dialect::Gemini);
    assert_eq!(Dialect::for_format(WireFormat::Bedrock), Dialect::Bedrock);
    assert_eq!(Dialect::for_format(WireFormat::Hermes), Dialect::XmlText);
    assert_eq!(Dialect::for_format(WireFormat::Xml), Dialect::XmlText);
}

#[test]
fn declare_dispatches_per_dialect() {
    let tools = [read_file()];
    check(
        &Dialect::Anthropic.declare(&tools).value,
        anthropic::tools(&tools),
    );
    check(
        &Dialect::Gemini.declare(&tools).value,
        json!([{"functionDeclarations": [{
            "name": "read_file", "description": "Read a file.",
            "parameters": {"type": "OBJECT", "properties": {
                "path": {"type": "STRING", "description": "File path."},
                "encoding": {"type": "STRING", "enum": ["utf-8", "latin1"]}},
                "required": ["path"]}}]}]),
    );
    let prompt = Dialect::XmlText.declare(&tools).value;
    assert!(prompt.as_str().unwrap().contains("### read_file"));
}

#[test]
fn a_wire_knows_its_dialect_and_its_call_format() {
    use toolrouter_providers::Wire;
    for (wire, dialect, format) in [
        (
            Wire::OpenAiChat,
            Dialect::OpenAiChat,
            WireFormat::OpenAiChat,
        ),
        (
            Wire::OpenAiResponses,
            Dialect::OpenAiResponses,
            WireFormat::OpenAiResponses,
        ),
        (Wire::Anthropic, Dialect::Anthropic, WireFormat::Anthropic),
        (Wire::Gemini, Dialect::Gemini, WireFormat::Gemini),
        (Wire::Ollama, Dialect::Ollama, WireFormat::Ollama),
        (Wire::Bedrock, Dialect::Bedrock, WireFormat::Bedrock),
    ] {
        assert_eq!(Dialect::from(wire), dialect);
        assert_eq!(Dialect::format_for_wire(wire), format);
        assert_eq!(Dialect::for_format(format), dialect);
    }
}
