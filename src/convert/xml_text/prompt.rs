//! The XML tag format for text-only endpoints: a system-prompt section that
//! teaches it, results as `<tool_result>` text, and calls written back as text.
//!
//! A call is the tool's name as a tag with one child element per parameter:
//! `<read_file><path>src/main.rs</path></read_file>` (the Cline convention).

use std::fmt::Write as _;

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value};

use super::content::{is_error, plain_text};
use super::schema::{declared_types, follow, required_names, tool_description};
use crate::core::{JsonObject, ToolCall};

/// How deep nested object parameters are listed in the prompt.
const MAX_LISTED_NESTING: usize = 3;

/// The system-prompt section that teaches the XML tag format and lists every
/// tool: its description, each parameter with type, required-ness, allowed
/// values and description, and a worked example calling the first tool.
/// An empty tool list gives an empty string.
pub(crate) fn system_prompt(tools: &[Tool]) -> String {
    let Some(first) = tools.first() else {
        return String::new();
    };
    let mut out = String::from(
        "# Tools\n\n\
         You can call the tools listed below. To call a tool, write its name as an XML tag \
         that contains one element per parameter, each holding that parameter's value:\n\n\
         <tool_name>\n<parameter_name>value</parameter_name>\n</tool_name>\n\n\
         Rules:\n\
         - Write text values as they are, without quotes or escaping. Write numbers and \
         booleans as plain literals (42, true) and arrays and objects as JSON.\n\
         - Give every required parameter; leave out optional parameters you do not need.\n\
         - You may call several tools one after the other. After your last call, stop \
         writing: each result comes back in the next message as \
         <tool_result name=\"tool_name\">...</tool_result>.\n\n\
         ## Available tools\n",
    );
    for tool in tools {
        let _ = write!(out, "\n### {}\n", tool.name);
        if let Some(description) = tool_description(tool) {
            let _ = writeln!(out, "{description}");
        }
        let schema = tool.input_schema.as_ref();
        let mut lines = String::new();
        list_params(schema, schema, 0, &mut lines);
        if lines.is_empty() {
            out.push_str("Parameters: none.\n");
        } else {
            out.push_str("Parameters:\n");
            out.push_str(&lines);
        }
    }
    out.push_str("\n## Example\n\n");
    out.push_str(&example_call(first));
    out
}

/// The result of one call as the text of the next user message:
/// `<tool_result name="NAME">` + the result as text + `</tool_result>`, with
/// `error="true"` on errors. A literal `</tool_result` inside the text is
/// written `&lt;/tool_result` so that it cannot close the element early.
pub(crate) fn result_text(call: &ToolCall, result: &CallToolResult) -> String {
    let body = plain_text(result).replace("</tool_result", "&lt;/tool_result");
    let name = quick_xml::escape::escape(call.name.as_str());
    let error = if is_error(result) {
        " error=\"true\""
    } else {
        ""
    };
    format!("<tool_result name=\"{name}\"{error}>\n{body}\n</tool_result>")
}

/// The assistant's turn as text: the text before the calls, then each call in
/// the XML tag format (string values raw, other values as JSON).
pub(crate) fn assistant_text(text: &str, calls: &[ToolCall]) -> String {
    let mut out = String::from(text);
    for call in calls {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&call_text(&call.name, &call.arguments));
    }
    out
}

/// One call in the XML tag format.
fn call_text(name: &str, arguments: &JsonObject) -> String {
    let mut out = format!("<{name}>\n");
    for (param, value) in arguments {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = writeln!(out, "<{param}>{value}</{param}>");
    }
    let _ = write!(out, "</{name}>");
    out
}

/// Lists the properties of an object schema, one line each, nested objects indented.
fn list_params(root: &JsonObject, schema: &JsonObject, nesting: usize, out: &mut String) {
    let schema = follow(root, schema);
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    let required = required_names(schema);
    let indent = "  ".repeat(nesting);
    for (name, prop) in properties {
        let empty = Map::new();
        let prop = follow(root, prop.as_object().unwrap_or(&empty));
        let needed = if required.contains(&name.as_str()) {
            "required"
        } else {
            "optional"
        };
        let _ = write!(
            out,
            "{indent}- {name} ({}, {needed}",
            type_label(root, prop, 0)
        );
        if let Some(Value::Array(values)) = prop.get("enum") {
            let listed: Vec<String> = values.iter().map(Value::to_string).collect();
            let _ = write!(out, ", one of: {}", listed.join(", "));
        }
        if let Some(constant) = prop.get("const") {
            let _ = write!(out, ", always {constant}");
        }
        if let Some(default) = prop.get("default") {
            let _ = write!(out, ", default {default}");
        }
        out.push(')');
        if let Some(description) = prop.get("description").and_then(Value::as_str) {
            let _ = write!(out, ": {description}");
        }
        out.push('\n');
        if nesting < MAX_LISTED_NESTING {
            list_params(root, prop, nesting + 1, out);
            if let Some(items) = prop.get("items").and_then(Value::as_object) {
                list_params(root, items, nesting + 1, out);
            }
        }
    }
}

/// A short type name: `string`, `array of integer`, `string or null`, `any`.
fn type_label(root: &JsonObject, schema: &JsonObject, depth: usize) -> String {
    if depth > MAX_LISTED_NESTING {
        return "any".to_owned();
    }
    let schema = follow(root, schema);
    let types = declared_types(schema);
    if !types.is_empty() {
        let labels: Vec<String> = types
            .iter()
            .map(
                |t| match (*t, schema.get("items").and_then(Value::as_object)) {
                    ("array", Some(items)) => {
                        format!("array of {}", type_label(root, items, depth + 1))
                    }
                    (t, _) => t.to_owned(),
                },
            )
            .collect();
        return labels.join(" or ");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            let labels: Vec<String> = branches
                .iter()
                .filter_map(Value::as_object)
                .map(|b| type_label(root, b, depth + 1))
                .collect();
            return labels.join(" or ");
        }
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
        .or_else(|| schema.get("const"))
    {
        return json_type(first).to_owned();
    }
    if schema.contains_key("properties") {
        return "object".to_owned();
    }
    "any".to_owned()
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A call of `tool` with example values for its required parameters (or its
/// first parameter when none is required).
fn example_call(tool: &Tool) -> String {
    let root = tool.input_schema.as_ref();
    let mut arguments = JsonObject::new();
    if let Value::Object(example) = example_value(root, root, 0) {
        arguments = example;
    }
    if arguments.is_empty()
        && let Some((name, prop)) = root
            .get("properties")
            .and_then(Value::as_object)
            .and_then(|p| p.iter().next())
    {
        let empty = Map::new();
        let prop = prop.as_object().unwrap_or(&empty);
        arguments.insert(name.clone(), example_value(root, prop, 1));
    }
    let mut out = call_text(&tool.name, &arguments);
    out.push('\n');
    out
}

/// An example value for a schema: its `examples`/`default`/`enum`/`const`
/// when given, else a placeholder of its type; objects list their required
/// properties.
fn example_value(root: &JsonObject, schema: &JsonObject, depth: usize) -> Value {
    let schema = follow(root, schema);
    if let Some(v) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
        .or_else(|| schema.get("default"))
        .or_else(|| schema.get("const"))
        .or_else(|| {
            schema
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|e| e.iter().find(|v| !v.is_null()))
        })
    {
        return v.clone();
    }
    let types = declared_types(schema);
    let first = types.iter().find(|t| **t != "null").copied().or_else(|| {
        schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
            .and_then(|b| {
                b.iter()
                    .filter_map(|b| b.get("type")?.as_str())
                    .find(|t| *t != "null")
            })
    });
    match first {
        Some("integer") => Value::from(1),
        Some("number") => Value::from(1.5),
        Some("boolean") => Value::Bool(true),
        Some("array") => {
            let item = schema
                .get("items")
                .and_then(Value::as_object)
                .filter(|_| depth < MAX_LISTED_NESTING)
                .map(|items| example_value(root, items, depth + 1));
            Value::Array(item.into_iter().collect())
        }
        Some("object") | None if schema.contains_key("properties") => {
            let mut object = Map::new();
            if depth <= MAX_LISTED_NESTING {
                let properties = schema.get("properties").and_then(Value::as_object);
                for name in required_names(schema) {
                    let empty = Map::new();
                    let prop = properties
                        .and_then(|p| p.get(name))
                        .and_then(Value::as_object)
                        .unwrap_or(&empty);
                    object.insert(name.to_owned(), example_value(root, prop, depth + 1));
                }
            }
            Value::Object(object)
        }
        Some("object") => Value::Object(Map::new()),
        _ => Value::String("text".to_owned()),
    }
}
