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
