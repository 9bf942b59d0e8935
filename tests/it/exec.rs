//! `Hub::execute`, the path for calls found in model streams, through the
//! public API: a registered tool, an unknown one, and the built-in `calculate`.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crate::support::text_of;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::json;
use toolrouter::{BuiltinsConfig, Hub, JsonObject, ToolCall, WireFormat, register_builtins};

fn args(value: serde_json::Value) -> Option<JsonObject> {
    match value {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

#[tokio::test]
async fn hub_execute_runs_registered_and_builtin_tools() {
    let hub = Hub::new();
    let schema = Arc::new(args(json!({ "type": "object" })).unwrap());
    hub.registry()
        .register_fn(
            Tool::new("shout", "upper-cases", schema),
            |a, _| async move {
                let text = a
                    .get("text")
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_uppercase();
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            },
        )
        .unwrap();
    let workspace = tempfile::tempdir().unwrap();
    register_builtins(hub.registry(), &BuiltinsConfig::new(workspace.path())).unwrap();

    let shout = ToolCall::new(
        "1",
        "shout",
        args(json!({ "text": "hi" })),
        WireFormat::OpenAiFunction,
    );
    assert_eq!(text_of(&hub.execute(&shout).await), "HI");

    let calc = ToolCall::new(
        "2",
        "calculate",
        args(json!({ "expression": "2 * (3 + 4)" })),
        WireFormat::OpenAiFunction,
    );
    let result = hub.execute(&calc).await;
    assert_eq!(result.is_error, Some(false), "{}", text_of(&result));
    assert!(text_of(&result).contains("14"), "{}", text_of(&result));

    let typo = ToolCall::new("3", "calculat", args(json!({})), WireFormat::OpenAiFunction);
    let result = hub.execute(&typo).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text_of(&result).contains("did you mean `calculate`"),
        "{}",
        text_of(&result)
    );
}

fn register_thousand_tools(hub: &Hub) {
    let schema = Arc::new(
        args(json!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
        }))
        .unwrap(),
    );
    for i in 0..1000 {
        let name = format!("tool_{i:04}_{}", "x".repeat(i % 40));
        hub.registry()
            .register_fn(Tool::new(name, "numbered", schema.clone()), |_, _| async {
                Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
            })
            .unwrap();
    }
}

/// A 1 MB unknown name against 1,000 tools is answered
/// with a small error that states the name's size (the comparison count is
/// checked in `registry::suggest`'s unit tests: none).
#[tokio::test]
async fn huge_unknown_name_gets_a_small_error() {
    let hub = Hub::new();
    register_thousand_tools(&hub);
    let name = "t".repeat(1 << 20);
    let call = ToolCall::new("1", name, args(json!({})), WireFormat::OpenAiFunction);
    let result = hub.execute(&call).await;
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    assert!(text.len() < 1024, "{} bytes", text.len());
    assert!(text.contains("… (1,048,576 bytes)"), "{text}");
    // A near miss still gets its suggestion.
    let call = ToolCall::new(
        "2",
        "tool_0001_",
        args(json!({})),
        WireFormat::OpenAiFunction,
    );
    let text = text_of(&hub.execute(&call).await);
    assert!(text.contains("did you mean `tool_0001_x`"), "{text}");
}

/// A 15 MB argument that fails validation gives a small
/// `isError` result that states its size, not a 15 MB one.
#[tokio::test]
async fn huge_invalid_argument_gets_a_small_error() {
    let hub = Hub::new();
    register_thousand_tools(&hub);
    let call = ToolCall::new(
        "1",
        "tool_0000_",
        args(json!({ "n": "9".repeat(15 << 20) })),
        WireFormat::OpenAiFunction,
    );
    let result = hub.execute(&call).await;
    assert_eq!(result.is_error, Some(true));
    let text = text_of(&result);
    assert!(text.len() < 2048, "{} bytes", text.len());
    assert!(text.contains("bytes)"), "{text}");
    assert!(text.contains("/n"), "{text}");
}

/// A file tool quotes a 1 MB path cut short, with its size.
#[tokio::test]
async fn huge_path_gets_a_small_error() {
    let hub = Hub::new();
    let workspace = tempfile::tempdir().unwrap();
    register_builtins(hub.registry(), &BuiltinsConfig::new(workspace.path())).unwrap();
    for (tool, path) in [
        ("read_file", "a/".repeat(1 << 19)),
        ("read_file", "../".repeat(1 << 18)),
    ] {
        let call = ToolCall::new(
            "1",
            tool,
            args(json!({ "path": path })),
            WireFormat::OpenAiFunction,
        );
        let result = hub.execute(&call).await;
        assert_eq!(result.is_error, Some(true));
        let text = text_of(&result);
        assert!(text.len() < 1024, "{} bytes", text.len());
        assert!(text.contains("bytes)"), "{text}");
    }
}
