//! OpenAI Chat Completions: `tools` (plain and strict), legacy `functions`,
//! the assistant message carrying `tool_calls`, and the `tool` result message.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::content::{flag_error, is_error, plain_text};
use super::note::Declarations;
use super::openai_strict::strict_schema;
use super::schema::{input_schema_value, tool_description};
use crate::core::ToolCall;

/// The `tools` array: `{"type":"function","function":{name, description, parameters}}`.
pub(super) fn tools(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| json!({"type": "function", "function": function(t)}))
            .collect(),
    )
}

/// The legacy `functions` array: `{name, description, parameters}`.
pub(crate) fn functions(tools: &[Tool]) -> Value {
    Value::Array(tools.iter().map(function).collect())
}

/// The `tools` array in strict mode: each function gets `"strict": true` and
/// its schema rewritten by [`strict_schema`]; a tool
/// strict mode cannot express keeps its plain schema and `"strict": false`.
pub(super) fn strict_tools(tools: &[Tool]) -> Declarations {
    strict_declarations(
        tools,
        |function| json!({"type": "function", "function": function}),
    )
}

/// Strict-mode declarations: each tool's [`strict_function`], wrapped by `wrap`
/// into the wire's tool entry, with every tool's notes.
pub(crate) fn strict_declarations(tools: &[Tool], wrap: impl Fn(Value) -> Value) -> Declarations {
    let mut notes = Vec::new();
    let value = tools
        .iter()
        .map(|t| {
            let (function, tool_notes) = strict_function(t);
            notes.extend(tool_notes);
            wrap(function)
        })
        .collect();
    Declarations {
        value: Value::Array(value),
        notes,
    }
}

/// The assistant message that carries the calls: `content` is the text before
/// them (`null` when empty), each call's `arguments` a JSON string.
pub(super) fn assistant_message(text: &str, calls: &[ToolCall]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": arguments_string(&c.arguments)},
            })
        })
        .collect();
    let content = if text.is_empty() {
        Value::Null
    } else {
        Value::String(text.to_owned())
    };
    let mut message = json!({"role": "assistant", "content": content});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    message
}

/// The `tool` message answering one call. Its `content` is the result as text
/// (tool messages carry text only); an error result is marked `Error: `.
pub(super) fn tool_message(call: &ToolCall, result: &CallToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": call.id,
        "content": flag_error(plain_text(result), is_error(result)),
    })
}

/// `{name, description, parameters}` with the schema unchanged.
pub(crate) fn function(tool: &Tool) -> Value {
    let mut function = Map::new();
    function.insert("name".to_owned(), Value::String(tool.name.to_string()));
    if let Some(description) = tool_description(tool) {
        function.insert("description".to_owned(), Value::String(description));
    }
    function.insert("parameters".to_owned(), input_schema_value(tool));
    Value::Object(function)
}

/// `{name, description, parameters, strict}` for strict mode, and its notes.
pub(crate) fn strict_function(tool: &Tool) -> (Value, Vec<super::ConversionNote>) {
    let outcome = strict_schema(&tool.name, &tool.input_schema);
    let mut function = Map::new();
    function.insert("name".to_owned(), Value::String(tool.name.to_string()));
    if let Some(description) = tool_description(tool) {
        function.insert("description".to_owned(), Value::String(description));
    }
    let strict = outcome.schema.is_some();
    let parameters = outcome
        .schema
        .map(Value::Object)
        .unwrap_or_else(|| input_schema_value(tool));
    function.insert("parameters".to_owned(), parameters);
    function.insert("strict".to_owned(), Value::Bool(strict));
    (Value::Object(function), outcome.notes)
}

/// Arguments as the JSON text OpenAI wire formats carry.
pub(crate) fn arguments_string(arguments: &crate::core::JsonObject) -> String {
    serde_json::to_string(arguments).unwrap_or_else(|_| "{}".to_owned())
}
