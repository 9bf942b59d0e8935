//! `--text-tools`: a Chat Completions body rewritten for an upstream that
//! cannot take tools (no `tools` field, or a chat template that cannot render
//! them). The request's function tools are taught in the system prompt in the
//! XML tag convention ([`Dialect::XmlText`]) instead of being declared; the
//! conversation's earlier calls become that convention's text in the assistant
//! turns, and their results `<tool_result>` text in user turns. The model's
//! calls, written in its text, come back to the client structured: the XML tag
//! format is one of the detector's defaults, and the detector knows the
//! request's tools either way.
//!
//! Every piece of data written into the text is escaped (`xml_text`), and the
//! detector decodes the values the model writes the same way
//! (`DetectConfig::xml_entities`). A tool's name (declared, or of an earlier
//! call) must be a tag name, else the request is refused: such a tool could
//! not be called in the convention. A parameter's name that is not one is
//! written escaped, inert. The prompt is written within the request's size limit
//! and fixed caps on schema text ([`PromptLimits`]), its work counted as it
//! goes, and a request past them is refused before the cost.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Map, Value};

use super::error::ApiError;
use crate::convert::Dialect;
use crate::convert::xml_text::{self, Overflow, PromptLimits};
use crate::core::{JsonObject, ToolCall, WireFormat, echo, is_xml_tag_name};

/// The fields that declare tools or steer their use, none of which an
/// upstream without tool support takes.
const TOOL_FIELDS: [&str; 5] = [
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "functions",
    "function_call",
];

/// What a name written as a tag must be, for the errors that refuse one.
const TAG_NAME_RULE: &str = "with --text-tools it is written as an XML tag, so it must be \
    1 to 128 ASCII letters, digits, `_`, `-`, `.` or `:`";

/// Rewrites `body`, a Chat Completions request, for an upstream without tool
/// support: see the module's documentation. The prompt takes at most
/// `max_request_bytes` (the largest request the proxy reads). A request with
/// no function tool and no tool turn is left as it is.
pub(crate) fn teach(
    body: &mut Map<String, Value>,
    max_request_bytes: usize,
) -> Result<(), ApiError> {
    let tools = function_tools(body);
    let choice = body.get("tool_choice").cloned();
    let none = matches!(&choice, Some(Value::String(c)) if c == "none");
    let prompt = if tools.is_empty() || none {
        None
    } else {
        check_declared_names(body)?;
        let limits = PromptLimits::within(max_request_bytes);
        let prompt = xml_text::write_prompt(&tools, limits, Overflow::Refuse).map_err(|e| {
            ApiError::bad_request(
                format!("--text-tools cannot teach the request's tools: {e}"),
                Some("tools"),
            )
        })?;
        let parallel = body.get("parallel_tool_calls") != Some(&Value::Bool(false));
        Some(prompt.text + &choice_rule(choice.as_ref(), parallel))
    };
    for key in TOOL_FIELDS {
        body.remove(key);
    }
    let Some(Value::Array(messages)) = body.get_mut("messages") else {
        return Ok(());
    };
    let rewritten = rewrite_turns(std::mem::take(messages))?;
    *messages = rewritten;
    if let Some(prompt) = prompt {
        add_to_system(messages, &prompt);
    }
    Ok(())
}

/// Refuses a declared function whose name cannot be written as a tag the
/// detector reads back.
fn check_declared_names(body: &Map<String, Value>) -> Result<(), ApiError> {
    let list = |key: &str| {
        body.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    };
    let tools = list("tools").enumerate().filter_map(|(idx, tool)| {
        let kind = tool
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("function");
        let function = tool.get("function").filter(|_| kind == "function")?;
        Some((format!("tools[{idx}].function"), function))
    });
    let functions = list("functions")
        .enumerate()
        .map(|(idx, function)| (format!("functions[{idx}]"), function));
    for (path, function) in tools.chain(functions) {
        let Some(name) = function.get("name").and_then(Value::as_str) else {
            continue;
        };
        if !is_xml_tag_name(name) {
            return Err(ApiError::bad_request(
                format!("tool name `{}`: {TAG_NAME_RULE}", echo(name)),
                Some(&format!("{path}.name")),
            ));
        }
    }
    Ok(())
}

/// The request's function tools (`tools` entries of type `function`, and the
/// deprecated `functions`), as MCP tools for the prompt. The request was
/// checked before (`read_catalog`): entries without a name are skipped.
pub(super) fn function_tools(body: &Map<String, Value>) -> Vec<Tool> {
    let functions = body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").and_then(Value::as_str).unwrap_or("function") == "function")
        .filter_map(|t| t.get("function"))
        .chain(
            body.get("functions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    functions
        .filter_map(|f| {
            let name = f.get("name")?.as_str()?.to_owned();
            let schema = f
                .get("parameters")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut tool = Tool::new(name, "", Arc::new(schema));
            tool.description = f
                .get("description")
                .and_then(Value::as_str)
                .map(|d| d.to_owned().into());
            Some(tool)
        })
        .collect()
}

/// The sentence `tool_choice` adds to the prompt: a call is required, or one
/// tool's. `auto` and an absent choice add nothing.
fn choice_rule(choice: Option<&Value>, parallel: bool) -> String {
    match choice {
        Some(Value::String(c)) if c == "required" => {
            if parallel {
                "\nYou must call at least one tool in this answer.\n".to_owned()
            } else {
                "\nYou must call exactly one tool in this answer.\n".to_owned()
            }
        }
        Some(Value::Object(c)) => {
            let name = c
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| c.get("name"))
                .and_then(Value::as_str);
            name.map(|n| {
                let mut rule = "\nYou must call the tool `".to_owned();
                xml_text::escape_into(n, &mut rule);
                rule.push_str(if parallel {
                    "` in this answer.\n"
                } else {
                    "` once in this answer.\n"
                });
                rule
            })
            .unwrap_or_default()
        }
        // `parallel_tool_calls: false`: the rules' "several tools one after
        // the other" does not hold for this answer.
        _ if !parallel => "\nCall one tool at most in this answer.\n".to_owned(),
        _ => String::new(),
    }
}

/// Appends `prompt` to the first system (or developer) message, or puts a
/// system message holding it first.
fn add_to_system(messages: &mut Vec<Value>, prompt: &str) {
    let first_system = messages.iter_mut().find(|m| {
        matches!(
            m.get("role").and_then(Value::as_str),
            Some("system" | "developer")
        )
    });
    if let Some(system) = first_system {
        match system.get_mut("content") {
            Some(Value::String(text)) => {
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(prompt);
                return;
            }
            Some(Value::Array(parts)) => {
                parts.push(serde_json::json!({"type": "text", "text": prompt}));
                return;
            }
            _ => {}
        }
    }
    messages.insert(0, serde_json::json!({"role": "system", "content": prompt}));
}

/// The conversation with its tool turns as text: an assistant turn's
/// `tool_calls` (or legacy `function_call`) written after its text in the XML
/// convention, and each run of `tool` (or legacy `function`) messages as one
/// user message of `<tool_result>` elements.
fn rewrite_turns(messages: Vec<Value>) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::with_capacity(messages.len());
    let mut names: HashMap<String, String> = HashMap::new();
    let mut results: Vec<(ToolCall, CallToolResult)> = Vec::new();
    for (idx, message) in messages.into_iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        match role {
            "tool" | "function" => {
                let name = match role {
                    "tool" => message
                        .get("tool_call_id")
                        .and_then(Value::as_str)
                        .and_then(|id| names.get(id))
                        .cloned(),
                    _ => message
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                };
                let Some(name) = name else {
                    return Err(ApiError::bad_request(
                        "a tool message answers no call of an earlier assistant turn (its `tool_call_id` is unknown)",
                        Some(&format!("messages[{idx}].tool_call_id")),
                    ));
                };
                let text = content_text(message.get("content"));
                let call = ToolCall::new("", name, None, WireFormat::Xml);
                results.push((
                    call,
                    CallToolResult::success(vec![ContentBlock::text(text)]),
                ));
            }
            _ => {
                flush_results(&mut results, &mut out);
                if role == "assistant" {
                    out.push(assistant_as_text(message, idx, &mut names)?);
                } else {
                    out.push(message);
                }
            }
        }
    }
    flush_results(&mut results, &mut out);
    Ok(out)
}

/// The results gathered so far as one user message.
fn flush_results(results: &mut Vec<(ToolCall, CallToolResult)>, out: &mut Vec<Value>) {
    let pairs: Vec<(&ToolCall, &CallToolResult)> = results.iter().map(|(c, r)| (c, r)).collect();
    out.extend(Dialect::XmlText.result_messages(&pairs));
    results.clear();
}

/// An assistant turn with its calls written into its text; the calls' ids
/// are remembered for the results that follow.
fn assistant_as_text(
    message: Value,
    idx: usize,
    names: &mut HashMap<String, String>,
) -> Result<Value, ApiError> {
    let mut calls = Vec::new();
    if let Some(Value::Array(tool_calls)) = message.get("tool_calls") {
        for (n, call) in tool_calls.iter().enumerate() {
            let function = call.get("function");
            let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
            let path = format!("messages[{idx}].tool_calls[{n}].function");
            let Some(name) = name else {
                return Err(ApiError::bad_request(
                    "a tool call of an assistant turn has no function name",
                    Some(&format!("{path}.name")),
                ));
            };
            let id = call.get("id").and_then(Value::as_str).unwrap_or("");
            names.insert(id.to_owned(), name.to_owned());
            let arguments = arguments(function.and_then(|f| f.get("arguments")), idx)?;
            calls.push(written_call(id, name, arguments, &path)?);
        }
    }
    if let Some(function) = message.get("function_call")
        && let Some(name) = function.get("name").and_then(Value::as_str)
    {
        let arguments = arguments(function.get("arguments"), idx)?;
        let path = format!("messages[{idx}].function_call");
        calls.push(written_call("", name, arguments, &path)?);
    }
    if calls.is_empty() {
        return Ok(message);
    }
    let text = content_text(message.get("content"));
    let turn = Dialect::XmlText
        .assistant_turn(&text, &calls)
        .pop()
        .unwrap_or(Value::Null);
    Ok(turn)
}

/// An earlier call as the call written into the text; refused when its name
/// cannot be written as a tag the detector reads back.
fn written_call(
    id: &str,
    name: &str,
    arguments: Option<JsonObject>,
    path: &str,
) -> Result<ToolCall, ApiError> {
    if !is_xml_tag_name(name) {
        return Err(ApiError::bad_request(
            format!("tool name `{}`: {TAG_NAME_RULE}", echo(name)),
            Some(&format!("{path}.name")),
        ));
    }
    Ok(ToolCall::new(id, name, arguments, WireFormat::Xml))
}

/// A call's `arguments`: a JSON string holding an object (OpenAI's shape),
/// or an object.
fn arguments(value: Option<&Value>, idx: usize) -> Result<Option<JsonObject>, ApiError> {
    let bad = || {
        ApiError::bad_request(
            "the arguments of an assistant turn's tool call are not a JSON object",
            Some(&format!("messages[{idx}].tool_calls")),
        )
    };
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(object)) => Ok(Some(object.clone())),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => Ok(Some(object)),
            _ => Err(bad()),
        },
        Some(_) => Err(bad()),
    }
}

/// A message's content as text: the string, or its text parts joined.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests;
