//! The fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), built on toolrouter's public API the
//! way an app would: tools, resources and prompts registered on a `Hub`, served
//! over Streamable HTTP at `/mcp`.
//!
//! ```text
//! cargo run --example conformance_server -- --http 127.0.0.1:3001
//! cargo run --example conformance_server -- --http 127.0.0.1:3001 --stateless --json
//! cargo run --example conformance_server -- --http 127.0.0.1:3001 --stateless --state-key-file KEYS
//! ../shared/conformance/run.sh --cmd "target/debug/examples/conformance_server --http 127.0.0.1:{port}"
//! ```
// rmcp 3.x marks sampling and logging deprecated (SEP-2577); the 2025-11-25
// suite still tests both.
#![allow(deprecated)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolrouter::PromptRequest;
use toolrouter::rmcp::model::{
    CallToolResult, ClientCapabilities, ContentBlock, CreateMessageRequestParams, GetPromptResult,
    InputRequiredResult, LoggingLevel, Prompt, PromptArgument, Resource, ResourceContents,
    ResourceTemplate, SamplingMessage, Tool,
};
use toolrouter::{
    Elicitation, HttpOptions, Hub, JsonObject, ServerOptions, StateKeys, ToolContext, ToolError,
};

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (http, keys) = parse_args()?;
    let hub = Hub::new();
    register_tools(&hub)?;
    register_mrtr_tools(&hub)?;
    register_change_triggers(&hub)?;
    register_resources(&hub)?;
    register_prompts(&hub)?;
    let mut options =
        ServerOptions::default().with_identity("toolrouter-conformance", env!("CARGO_PKG_VERSION"));
    if let Some(keys) = keys {
        options = options.with_state_keys(keys);
    }
    let server = toolrouter::serve_http(hub, options, http).await?;
    eprintln!("conformance_server: serving MCP at {}", server.url());
    let stop = server.shutdown_token();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => stop.cancel(),
        _ = stop.cancelled() => {}
    }
    server.wait().await?;
    Ok(())
}

/// `--http ADDR`, then optionally `--stateless` (no sessions: stateless
/// `tools/call` takes the transport's direct path) and `--json` (JSON replies
/// where the transport allows them) and `--state-key-file FILE` (the keys that
/// sign `requestState`, shared by processes behind one load balancer).
fn parse_args() -> Result<(HttpOptions, Option<StateKeys>), String> {
    const USAGE: &str = "usage: conformance_server --http 127.0.0.1:PORT [--stateless] [--json] \
                         [--state-key-file FILE]";
    let mut args = std::env::args().skip(1).peekable();
    let addr: SocketAddr = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => addr
            .parse()
            .map_err(|e| format!("bad address {addr}: {e}"))?,
        _ => return Err(USAGE.to_owned()),
    };
    let mut options = HttpOptions::new(addr);
    let mut keys = None;
    while let Some(flag) = args.next() {
        options = match (flag.as_str(), args.next_if(|_| flag == "--state-key-file")) {
            ("--stateless", None) => options.with_sessions(false),
            ("--json", None) => options.with_json_response(true),
            ("--state-key-file", Some(path)) => {
                keys = Some(StateKeys::load(path.as_ref()).map_err(|e| e.to_string())?);
                options
            }
            _ => return Err(USAGE.to_owned()),
        };
    }
    Ok((options, keys))
}

fn schema(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn no_args() -> JsonObject {
    schema(json!({ "type": "object", "properties": {} }))
}

fn text(s: impl Into<String>) -> Result<CallToolResult, ToolError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(s)]))
}

fn tool(name: &'static str, description: &'static str, input: JsonObject) -> Tool {
    Tool::new(name, description, Arc::new(input))
}

fn register_tools(hub: &Hub) -> Result<(), Box<dyn std::error::Error>> {
    let reg = hub.registry();
    reg.register_fn(
        tool(
            "test_simple_text",
            "Returns a simple text response",
            no_args(),
        ),
        |_, _| async { text("This is a simple text response for testing.") },
    )?;
    reg.register_fn(
        tool("test_image_content", "Returns image content", no_args()),
        |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::image(
                PNG,
                "image/png",
            )]))
        },
    )?;
    reg.register_fn(
        tool("test_audio_content", "Returns audio content", no_args()),
        |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::audio(
                WAV,
                "audio/wav",
            )]))
        },
    )?;
    reg.register_fn(
        tool(
            "test_embedded_resource",
            "Returns an embedded resource",
            no_args(),
        ),
        |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::resource(
                ResourceContents::text(
                    "This is an embedded resource content.",
                    "test://embedded-resource",
                )
                .with_mime_type("text/plain"),
            )]))
        },
    )?;
    reg.register_fn(
        tool(
            "test_multiple_content_types",
            "Returns text, image and resource content",
            no_args(),
        ),
        |_, _| async {
            Ok(CallToolResult::success(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(PNG, "image/png"),
                ContentBlock::resource(
                    ResourceContents::text(
                        r#"{"test":"data","value":123}"#,
                        "test://mixed-content-resource",
                    )
                    .with_mime_type("application/json"),
                ),
            ]))
        },
    )?;
    reg.register_fn(
        tool(
            "test_tool_with_logging",
            "Sends log messages while it runs",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            ctx.log(LoggingLevel::Info, json!("Tool execution started"))
                .await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, json!("Tool processing data"))
                .await;
            tokio::time::sleep(Duration::from_millis(50)).await;
            ctx.log(LoggingLevel::Info, json!("Tool execution completed"))
                .await;
            text("Tool with logging executed successfully")
        },
    )?;
    reg.register_fn(
        tool("test_error_handling", "Always fails", no_args()),
        |_, _| async {
            Err(ToolError::new(
                "This tool intentionally returns an error for testing",
            ))
        },
    )?;
    reg.register_fn(
        tool(
            "test_tool_with_progress",
            "Reports progress while it runs",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.progress(
                    step,
                    Some(100.0),
                    Some(format!("Completed step {step} of 100")),
                )
                .await;
            }
            text("Progress reported")
        },
    )?;
    reg.register_fn(
        tool(
            "test_sampling",
            "Asks the client's model for a completion",
            schema(json!({
                "type": "object",
                "properties": { "prompt": { "type": "string", "description": "The prompt to send to the LLM" } },
                "required": ["prompt"]
            })),
        ),
        |args, ctx: ToolContext| async move {
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default().to_owned();
            let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
            let reply = ctx.create_message(params).await?;
            let reply = serde_json::to_value(&reply)?;
            let answer = reply
                .pointer("/content/text")
                .and_then(Value::as_str)
                .unwrap_or("No response")
                .to_owned();
            text(format!("LLM response: {answer}"))
        },
    )?;
    reg.register_fn(
        tool(
            "test_elicitation",
            "Asks the user for input",
            schema(json!({
                "type": "object",
                "properties": { "message": { "type": "string", "description": "The message to show the user" } },
                "required": ["message"]
            })),
        ),
        |args, ctx: ToolContext| async move {
            let message = args.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
            let form = json!({
                "type": "object",
                "properties": {
                    "username": { "type": "string", "description": "User's response" },
                    "email": { "type": "string", "description": "User's email address" }
                },
                "required": ["username", "email"]
            });
            let answer = ctx.elicit_form(message, form).await?;
            text(format!("User response: {}", describe(&answer)))
        },
    )?;
    reg.register_fn(
        tool("test_elicitation_sep1034_defaults", "Elicitation with default values (SEP-1034)", no_args()),
        |_, ctx: ToolContext| async move {
            let form = json!({
                "type": "object",
                "properties": {
                    "name": { "type": "string", "description": "User name", "default": "John Doe" },
                    "age": { "type": "integer", "description": "User age", "default": 30 },
                    "score": { "type": "number", "description": "User score", "default": 95.5 },
                    "status": {
                        "type": "string", "description": "User status",
                        "enum": ["active", "inactive", "pending"], "default": "active"
                    },
                    "verified": { "type": "boolean", "description": "Verification status", "default": true }
                },
                "required": []
            });
            let answer = ctx
                .elicit_form("Please review and update the form fields with defaults", form)
                .await?;
            text(format!("Elicitation completed: {}", describe(&answer)))
        },
    )?;
    reg.register_fn(
        tool(
            "test_elicitation_sep1330_enums",
            "Elicitation with every enum form (SEP-1330)",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            let form = json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {
                        "type": "string", "description": "Select one option",
                        "enum": ["option1", "option2", "option3"]
                    },
                    "titledSingle": {
                        "type": "string", "description": "Select one option with titles",
                        "oneOf": [
                            { "const": "value1", "title": "First Option" },
                            { "const": "value2", "title": "Second Option" },
                            { "const": "value3", "title": "Third Option" }
                        ]
                    },
                    "legacyEnum": {
                        "type": "string", "description": "Select one option (legacy)",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"]
                    },
                    "untitledMulti": {
                        "type": "array", "description": "Select multiple options",
                        "minItems": 1, "maxItems": 3,
                        "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
                    },
                    "titledMulti": {
                        "type": "array", "description": "Select multiple options with titles",
                        "minItems": 1, "maxItems": 3,
                        "items": { "anyOf": [
                            { "const": "value1", "title": "First Choice" },
                            { "const": "value2", "title": "Second Choice" },
                            { "const": "value3", "title": "Third Choice" }
                        ] }
                    }
                },
                "required": []
            });
            let answer = ctx
                .elicit_form("Please select options from the enum fields", form)
                .await?;
            text(format!("Elicitation completed: {}", describe(&answer)))
        },
    )?;
    reg.register_fn(
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "type": "object",
                        "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
                    }
                },
                "properties": {
                    "name": { "type": "string" },
                    "address": { "$ref": "#/$defs/address" }
                },
                "additionalProperties": false
            })),
        ),
        |args, _| async move { text(format!("Received: {}", Value::Object(args))) },
    )?;
    Ok(())
}

/// Diagnostic hooks of the 2026-07-28 suite: each call adds or removes a tool
/// (a prompt), so subscribed clients must hear `list_changed`.
fn register_change_triggers(hub: &Hub) -> Result<(), Box<dyn std::error::Error>> {
    let registry = Arc::downgrade(hub.registry());
    hub.registry().register_fn(
        tool(
            "test_trigger_tool_change",
            "Adds or removes test_dynamic_tool",
            no_args(),
        ),
        move |_, _| {
            let registry = registry.upgrade();
            async move {
                let registry =
                    registry.ok_or_else(|| ToolError::new("the server is shutting down"))?;
                if registry.remove("test_dynamic_tool").is_none() {
                    registry
                        .register_fn(
                            tool("test_dynamic_tool", "Appears and disappears", no_args()),
                            |_, _| async { text("dynamic") },
                        )
                        .map_err(|e| ToolError::new(e.to_string()))?;
                }
                text("tool list changed")
            }
        },
    )?;
    let prompts = Arc::downgrade(hub.prompts());
    hub.registry().register_fn(
        tool(
            "test_trigger_prompt_change",
            "Adds or removes test_dynamic_prompt",
            no_args(),
        ),
        move |_, _| {
            let prompts = prompts.upgrade();
            async move {
                let prompts =
                    prompts.ok_or_else(|| ToolError::new("the server is shutting down"))?;
                if !prompts.remove("test_dynamic_prompt") {
                    prompts.register_fn(
                        Prompt::new("test_dynamic_prompt", Some("Appears and disappears"), None),
                        |_req: PromptRequest| async {
                            Ok(prompt_result(json!([
                                { "role": "user", "content": { "type": "text", "text": "dynamic" } }
                            ]))?
                            .into())
                        },
                    );
                }
                text("prompt list changed")
            }
        },
    )?;
    Ok(())
}

fn describe(answer: &Elicitation) -> String {
    match answer {
        Elicitation::Accept(content) => {
            format!("action=accept, content={}", Value::Object(content.clone()))
        }
        Elicitation::Decline => "action=decline, content={}".to_owned(),
        Elicitation::Cancel => "action=cancel, content={}".to_owned(),
    }
}

fn elicit_request(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field]
            }
        }
    })
}

fn sampling_request(prompt: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
            "maxTokens": max_tokens
        }
    })
}

/// The text an elicitation answer gave for `field`.
fn answered(ctx: &ToolContext, key: &str, field: &str) -> Option<String> {
    let response = ctx.input_response(key)?;
    let value = response.pointer(&format!("/content/{field}"))?;
    Some(match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn state(ctx: &ToolContext) -> Option<Value> {
    serde_json::from_str(ctx.request_state()?).ok()
}

fn ask(
    ctx: &ToolContext,
    requests: Value,
    state: Option<Value>,
) -> Result<CallToolResult, ToolError> {
    let mut body = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(state) = state {
        body["requestState"] = Value::String(state.to_string());
    }
    let result: InputRequiredResult = serde_json::from_value(body)?;
    ctx.require_input(result)
}

/// The multi-round (`input_required`) fixtures of the 2026-07-28 suite.
fn register_mrtr_tools(hub: &Hub) -> Result<(), Box<dyn std::error::Error>> {
    let reg = hub.registry();
    reg.register_fn(
        tool(
            "test_streaming_elicitation",
            "Reports progress on the response stream",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            ctx.progress(50.0, Some(100.0), None).await;
            text("Streaming complete")
        },
    )?;
    reg.register_fn(
        tool(
            "test_logging_tool",
            "Logs only when the request asks for a log level",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            ctx.log(LoggingLevel::Info, json!("test_logging_tool ran"))
                .await;
            text("Logging complete")
        },
    )?;
    reg.register_fn(
        tool(
            "test_missing_capability",
            "Needs the client's sampling capability",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            ctx.require_client_capabilities(
                ClientCapabilities::builder().enable_sampling().build(),
            )?;
            text("Success")
        },
    )?;
    reg.register_fn(
        tool(
            "test_input_required_result_elicitation",
            "MRTR: asks for the user's name",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            match answered(&ctx, "user_name", "name") {
                Some(name) => text(format!("Hello, {name}!")),
                None => ask(
                    &ctx,
                    json!({ "user_name": elicit_request("What is your name?", "name", "string") }),
                    None,
                ),
            }
        },
    )?;
    reg.register_fn(
        tool("test_input_required_result_sampling", "MRTR: asks the client's model", no_args()),
        |_, ctx: ToolContext| async move {
            match ctx.input_response("sample_request") {
                Some(reply) => {
                    let answer = reply.pointer("/content/text").and_then(Value::as_str).unwrap_or("no response");
                    text(format!("Sampling result: {answer}"))
                }
                None => ask(
                    &ctx,
                    json!({ "sample_request": sampling_request("What is the capital of France?", 100) }),
                    None,
                ),
            }
        },
    )?;
    reg.register_fn(
        tool(
            "test_input_required_result_list_roots",
            "MRTR: asks for the client's roots",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            match ctx.input_response("roots_request") {
                Some(reply) => {
                    let n = reply
                        .get("roots")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    text(format!("Found {n} root(s)"))
                }
                None => ask(
                    &ctx,
                    json!({ "roots_request": { "method": "roots/list", "params": {} } }),
                    None,
                ),
            }
        },
    )?;
    reg.register_fn(
        tool(
            "test_input_required_result_request_state",
            "MRTR: keeps state between rounds",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            let confirmed = ctx
                .input_response("confirm")
                .and_then(|r| r.pointer("/content/ok"))
                .and_then(Value::as_bool)
                == Some(true);
            let kind_ok = state(&ctx).is_some_and(|s| s["kind"] == "request-state");
            if confirmed && kind_ok {
                return text("state-ok: requestState validated");
            }
            ask(
                &ctx,
                json!({ "confirm": elicit_request("Please confirm", "ok", "boolean") }),
                Some(json!({ "kind": "request-state", "nonce": uuid::Uuid::new_v4().to_string() })),
            )
        },
    )?;
    reg.register_fn(
        tool(
            "test_input_required_result_multiple_inputs",
            "MRTR: asks three things at once",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            let kind_ok = state(&ctx).is_some_and(|s| s["kind"] == "multiple-inputs");
            if let (true, Some(name), Some(greeting), Some(roots)) = (
                kind_ok,
                answered(&ctx, "user_name", "name"),
                ctx.input_response("greeting"),
                ctx.input_response("client_roots"),
            ) {
                let greeting = greeting
                    .pointer("/content/text")
                    .and_then(Value::as_str)
                    .unwrap_or("Hello there!");
                let n = roots
                    .get("roots")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                return text(format!("Name: {name}; Greeting: {greeting}; Roots: {n}"));
            }
            ask(
                &ctx,
                json!({
                    "user_name": elicit_request("What is your name?", "name", "string"),
                    "greeting": sampling_request("Generate a greeting", 50),
                    "client_roots": { "method": "roots/list", "params": {} }
                }),
                Some(
                    json!({ "kind": "multiple-inputs", "nonce": uuid::Uuid::new_v4().to_string() }),
                ),
            )
        },
    )?;
    reg.register_fn(
        tool("test_input_required_result_multi_round", "MRTR: two rounds of questions", no_args()),
        |_, ctx: ToolContext| async move {
            let state = state(&ctx);
            let round = state.as_ref().and_then(|s| s["round"].as_u64());
            if round == Some(1)
                && let Some(name) = answered(&ctx, "step1", "name")
            {
                return ask(
                    &ctx,
                    json!({ "step2": elicit_request("Step 2: What is your favorite color?", "color", "string") }),
                    Some(json!({ "round": 2, "name": name, "nonce": uuid::Uuid::new_v4().to_string() })),
                );
            }
            if round == Some(2)
                && let Some(color) = answered(&ctx, "step2", "color")
            {
                let name = state
                    .as_ref()
                    .and_then(|s| s["name"].as_str())
                    .unwrap_or("friend")
                    .to_owned();
                return text(format!("Multi-round complete for {name} who likes {color}"));
            }
            ask(
                &ctx,
                json!({ "step1": elicit_request("Step 1: What is your name?", "name", "string") }),
                Some(json!({ "round": 1, "nonce": uuid::Uuid::new_v4().to_string() })),
            )
        },
    )?;
    reg.register_fn(
        tool(
            "test_input_required_result_tampered_state",
            "MRTR: integrity-protected state",
            no_args(),
        ),
        |_, ctx: ToolContext| async move {
            // The server refuses an altered requestState before this runs.
            if state(&ctx).is_some_and(|s| s["kind"] == "tamper-test")
                && ctx.input_response("confirm").is_some()
            {
                return text("integrity-ok: state verified");
            }
            ask(
                &ctx,
                json!({ "confirm": elicit_request("Please confirm", "ok", "boolean") }),
                Some(json!({ "kind": "tamper-test", "nonce": uuid::Uuid::new_v4().to_string() })),
            )
        },
    )?;
    reg.register_fn(
        tool("test_input_required_result_capabilities", "MRTR: asks only what the client supports", no_args()),
        |_, ctx: ToolContext| async move {
            if let Some(keys) = ctx.input_response_keys() {
                return text(format!("capabilities-ok: received {}", keys.join(",")));
            }
            let caps = ctx.client_capabilities();
            let mut requests = serde_json::Map::new();
            if caps.as_ref().is_some_and(|c| c.elicitation.is_some()) {
                requests.insert("elicit_input".into(), elicit_request("Elicitation input", "value", "string"));
            }
            if caps.as_ref().is_some_and(|c| c.sampling.is_some()) {
                requests.insert("sample_input".into(), sampling_request("Sample request", 50));
            }
            if requests.is_empty() {
                return text("No supported capabilities declared");
            }
            ask(
                &ctx,
                Value::Object(requests),
                Some(json!({ "kind": "capabilities-test", "nonce": uuid::Uuid::new_v4().to_string() })),
            )
        },
    )?;
    Ok(())
}

fn register_resources(hub: &Hub) -> Result<(), Box<dyn std::error::Error>> {
    let res = hub.resources();
    res.register_text(
        Resource::new("test://static-text", "Static Text Resource")
            .with_description("A static text resource for testing")
            .with_mime_type("text/plain"),
        "This is the content of the static text resource.",
    );
    res.register_fn(
        Resource::new("test://static-binary", "Static Binary Resource")
            .with_description("A static binary resource (image) for testing")
            .with_mime_type("image/png"),
        |uri| async move {
            Ok(vec![
                ResourceContents::blob(PNG, uri).with_mime_type("image/png"),
            ])
        },
    );
    res.register_text(
        Resource::new("test://watched-resource", "Watched Resource")
            .with_description("A resource that can be subscribed to")
            .with_mime_type("text/plain"),
        "Watched resource content",
    );
    res.register_template_fn(
        ResourceTemplate::new("test://template/{id}/data", "Resource Template")
            .with_description("A resource template with parameter substitution")
            .with_mime_type("application/json"),
        |uri, vars| async move {
            let id = vars.get("id").cloned().unwrap_or_default();
            let body =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok(vec![
                ResourceContents::text(body.to_string(), uri).with_mime_type("application/json"),
            ])
        },
    )?;
    Ok(())
}

fn prompt_result(messages: Value) -> Result<GetPromptResult, ToolError> {
    Ok(serde_json::from_value(json!({ "messages": messages }))?)
}

fn register_prompts(hub: &Hub) -> Result<(), Box<dyn std::error::Error>> {
    let prompts = hub.prompts();
    prompts.register_fn(
        Prompt::new("test_simple_prompt", Some("A simple prompt without arguments"), None),
        |_req: PromptRequest| async {
            Ok(prompt_result(json!([
                { "role": "user", "content": { "type": "text", "text": "This is a simple prompt for testing." } }
            ]))?
            .into())
        },
    );
    let arg = |name: &str, description: &str| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(true)
    };
    prompts.register_with_completion(
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt with required arguments"),
            Some(vec![
                arg("arg1", "First test argument"),
                arg("arg2", "Second test argument"),
            ]),
        ),
        |req: PromptRequest| async move {
            let a1 = req.argument("arg1").unwrap_or_default().to_owned();
            let a2 = req.argument("arg2").unwrap_or_default().to_owned();
            Ok(prompt_result(json!([{ "role": "user", "content": {
                "type": "text", "text": format!("Prompt with arguments: arg1='{a1}', arg2='{a2}'")
            } }]))?
            .into())
        },
        |_argument, prefix| {
            ["paris", "park", "party"]
                .iter()
                .filter(|v| v.starts_with(prefix))
                .map(|v| (*v).to_owned())
                .collect()
        },
    );
    prompts.register_fn(
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt that embeds a resource"),
            Some(vec![arg("resourceUri", "URI of the resource to embed")]),
        ),
        |req: PromptRequest| async move {
            let uri = req.argument("resourceUri").unwrap_or_default().to_owned();
            Ok(prompt_result(json!([
                { "role": "user", "content": { "type": "resource", "resource": {
                    "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing."
                } } },
                { "role": "user", "content": { "type": "text", "text": "Please process the embedded resource above." } }
            ]))?
            .into())
        },
    );
    prompts.register_fn(
        Prompt::new("test_prompt_with_image", Some("A prompt with an image"), None),
        |_req: PromptRequest| async {
            Ok(prompt_result(json!([
                { "role": "user", "content": { "type": "image", "data": PNG, "mimeType": "image/png" } },
                { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } }
            ]))?
            .into())
        },
    );
    prompts.register_fn(
        Prompt::new("test_input_required_result_prompt", Some("MRTR: a prompt that asks for context"), None),
        |req: PromptRequest| async move {
            let context = req
                .input_responses
                .as_ref()
                .and_then(|r| r.get("user_context"))
                .and_then(|r| r.pointer("/content/context"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            match context {
                Some(context) => Ok(prompt_result(json!([
                    { "role": "user", "content": { "type": "text", "text": format!("Prompt with context: {context}") } }
                ]))?
                .into()),
                None => {
                    let body = json!({
                        "resultType": "input_required",
                        "inputRequests": { "user_context": elicit_request("What context should the prompt use?", "context", "string") }
                    });
                    let result: InputRequiredResult = serde_json::from_value(body)?;
                    Ok(result.into())
                }
            }
        },
    );
    Ok(())
}
