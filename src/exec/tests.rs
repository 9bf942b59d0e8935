//! Executor tests: every way a call can end.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::json;

use super::{ExecError, Executor, ExecutorConfig};
use crate::core::{JsonObject, ToolCall, WireFormat};
use crate::registry::{RegisteredTool, ToolContext, ToolError, ToolRegistry};

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn tool(name: &str, schema: serde_json::Value) -> Tool {
    Tool::new(name.to_owned(), "test tool", Arc::new(object(schema)))
}

fn any_args(name: &str) -> Tool {
    tool(name, json!({ "type": "object" }))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

fn executor(registry: &Arc<ToolRegistry>) -> Executor {
    Executor::new(registry.clone(), ExecutorConfig::default())
}

fn call(name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(
        "call-1",
        name,
        Some(object(args)),
        WireFormat::OpenAiFunction,
    )
}

fn check_error(result: &CallToolResult, expect_text: &str) {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an isError result: {result:?}"
    );
    let text = text_of(result);
    assert!(
        text.contains(expect_text),
        "`{text}` should contain `{expect_text}`"
    );
}

#[tokio::test]
async fn a_handler_result_comes_back_unchanged() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(
            tool("add", json!({ "type": "object", "properties": { "a": { "type": "integer" }, "b": { "type": "integer" } }, "required": ["a", "b"] })),
            |args, _| async move {
                let a = args["a"].as_i64().unwrap_or(0);
                let b = args["b"].as_i64().unwrap_or(0);
                Ok(CallToolResult::success(vec![ContentBlock::text((a + b).to_string())]))
            },
        )
        .unwrap();
    let result = executor(&registry)
        .execute(&call("add", json!({ "a": 2, "b": 40 })))
        .await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text_of(&result), "42");
}

#[tokio::test]
async fn an_unknown_tool_names_the_closest_registered_ones() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_schema_only(any_args("read_file"))
        .unwrap();
    registry
        .register_schema_only(any_args("write_file"))
        .unwrap();
    let exec = executor(&registry);
    let result = exec.execute(&call("read_fil", json!({}))).await;
    check_error(&result, "unknown tool `read_fil`; did you mean `read_file`");
    let err = exec
        .try_execute(
            "read_fil",
            JsonObject::new(),
            ToolContext::new("c", "read_fil"),
        )
        .await
        .unwrap_err();
    let ExecError::UnknownTool { name, suggestions } = err;
    assert_eq!(name, "read_fil");
    assert_eq!(suggestions.first().map(String::as_str), Some("read_file"));
}

#[tokio::test]
async fn invalid_arguments_name_the_path_and_the_rule() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(
            tool("greet", json!({ "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] })),
            |_, _| async { Ok(CallToolResult::success(vec![])) },
        )
        .unwrap();
    let result = executor(&registry)
        .execute(&call("greet", json!({ "name": 7 })))
        .await;
    check_error(&result, "invalid arguments for tool `greet`");
    check_error(&result, "/name");
    check_error(&result, "type");
}

#[tokio::test]
async fn a_schema_only_tool_says_no_handler_is_registered() {
    let registry = Arc::new(ToolRegistry::new());
    registry.register_schema_only(any_args("remote")).unwrap();
    let result = executor(&registry)
        .execute(&call("remote", json!({})))
        .await;
    check_error(&result, "no handler registered");
}

#[tokio::test]
async fn a_handler_error_becomes_an_is_error_result() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(any_args("fails"), |_, _| async {
            Err(ToolError::new("disk full"))
        })
        .unwrap();
    let result = executor(&registry).execute(&call("fails", json!({}))).await;
    check_error(&result, "disk full");
}

#[tokio::test]
async fn a_panicking_handler_becomes_an_is_error_result() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(any_args("boom"), |_, _| async {
            if std::hint::black_box(true) {
                panic!("kaboom");
            }
            Ok(CallToolResult::success(vec![]))
        })
        .unwrap();
    let exec = executor(&registry);
    let result = exec.execute(&call("boom", json!({}))).await;
    check_error(&result, "panicked: kaboom");
    // The executor still serves calls afterwards.
    let again = exec.execute(&call("boom", json!({}))).await;
    check_error(&again, "kaboom");
}

#[tokio::test]
async fn a_slow_handler_times_out_with_the_per_tool_limit() {
    let registry = Arc::new(ToolRegistry::new());
    let token_slot = Arc::new(std::sync::Mutex::new(None));
    let slot = token_slot.clone();
    let slow = RegisteredTool::new(
        any_args("slow"),
        Some(Arc::new(crate::registry::FnHandler::new(
            move |_, ctx: ToolContext| {
                let slot = slot.clone();
                async move {
                    *slot.lock().unwrap() = Some(ctx.cancellation().clone());
                    futures::future::pending::<()>().await;
                    Ok(CallToolResult::success(vec![]))
                }
            },
        ))),
    )
    .unwrap()
    .with_timeout(Duration::from_millis(100));
    registry.insert(slow);
    let exec = Executor::new(
        registry.clone(),
        ExecutorConfig::default().with_default_timeout(Duration::from_secs(3600)),
    );
    let result = exec.execute(&call("slow", json!({}))).await;
    check_error(&result, "timed out after 100 ms");
    // The timed-out call's token is cancelled, so work it spawned stops too.
    let token = token_slot.lock().unwrap().take().expect("the handler ran");
    assert!(token.is_cancelled());
}

#[test]
fn the_default_timeout_is_sixty_seconds() {
    assert_eq!(
        ExecutorConfig::default().default_timeout,
        Duration::from_secs(60)
    );
}

#[tokio::test]
async fn the_default_timeout_applies_without_a_per_tool_one() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(any_args("sleepy"), |_, _| async {
            tokio::time::sleep(Duration::from_secs(120)).await;
            Ok(CallToolResult::success(vec![]))
        })
        .unwrap();
    let exec = Executor::new(
        registry.clone(),
        ExecutorConfig::default().with_default_timeout(Duration::from_millis(50)),
    );
    let result = exec.execute(&call("sleepy", json!({}))).await;
    check_error(&result, "timed out after 50 ms");
}

#[tokio::test]
async fn cancelling_the_token_stops_the_call() {
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register_fn(any_args("wait"), |_, _| async {
            futures::future::pending::<()>().await;
            Ok(CallToolResult::success(vec![]))
        })
        .unwrap();
    let exec = executor(&registry);
    let token = tokio_util::sync::CancellationToken::new();
    let ctx = ToolContext::new("c1", "wait").with_cancellation(token.clone());
    let running = tokio::spawn({
        let exec = exec.clone();
        async move { exec.execute_with("wait", JsonObject::new(), ctx).await }
    });
    token.cancel();
    let result = running.await.unwrap();
    check_error(&result, "was cancelled");
}

#[tokio::test]
async fn dropping_the_call_cancels_the_handlers_token() {
    let registry = Arc::new(ToolRegistry::new());
    let (started_tx, started_rx) =
        tokio::sync::oneshot::channel::<tokio_util::sync::CancellationToken>();
    let started_tx = Arc::new(std::sync::Mutex::new(Some(started_tx)));
    registry
        .register_fn(any_args("hang"), move |_, ctx: ToolContext| {
            let started_tx = started_tx.clone();
            async move {
                if let Some(tx) = started_tx.lock().unwrap().take() {
                    let _ = tx.send(ctx.cancellation().clone());
                }
                futures::future::pending::<()>().await;
                Ok(CallToolResult::success(vec![]))
            }
        })
        .unwrap();
    let exec = executor(&registry);
    let running = tokio::spawn({
        let exec = exec.clone();
        async move { exec.execute(&call("hang", json!({}))).await }
    });
    let handler_token = started_rx.await.unwrap();
    assert!(!handler_token.is_cancelled());
    running.abort();
    let _ = running.await;
    assert!(
        handler_token.is_cancelled(),
        "dropping the call must cancel its token"
    );
}

#[tokio::test]
async fn the_concurrency_limit_holds_calls_back() {
    let registry = Arc::new(ToolRegistry::new());
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (r, p) = (running.clone(), peak.clone());
    registry
        .register_fn(any_args("busy"), move |_, _| {
            let (running, peak) = (r.clone(), p.clone());
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(5)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(CallToolResult::success(vec![]))
            }
        })
        .unwrap();
    let exec = Executor::new(
        registry.clone(),
        ExecutorConfig::default().with_max_concurrent(2),
    );
    let calls: Vec<_> = (0..8)
        .map(|_| {
            let exec = exec.clone();
            tokio::spawn(async move { exec.execute(&call("busy", json!({}))).await })
        })
        .collect();
    for c in calls {
        assert_eq!(c.await.unwrap().is_error, Some(false));
    }
    assert_eq!(peak.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn structured_output_must_match_the_output_schema() {
    let registry = Arc::new(ToolRegistry::new());
    let output = object(json!({
        "type": "object",
        "properties": {"result": {"type": "number"}},
        "required": ["result"]
    }));
    let def = any_args("measure").with_raw_output_schema(Arc::new(output));
    registry
        .register_fn(def, |args, _ctx| async move {
            let structured = match args.get("mode").and_then(|m| m.as_str()) {
                Some("good") => Some(json!({"result": 2.5})),
                Some("wrong") => Some(json!({"result": "two"})),
                _ => None,
            };
            let mut result = CallToolResult::success(vec![ContentBlock::text("done")]);
            result.structured_content = structured;
            Ok(result)
        })
        .unwrap();
    let exec = executor(&registry);

    let good = exec
        .execute(&call("measure", json!({"mode": "good"})))
        .await;
    assert_ne!(good.is_error, Some(true), "{good:?}");
    assert_eq!(good.structured_content, Some(json!({"result": 2.5})));

    let wrong = exec
        .execute(&call("measure", json!({"mode": "wrong"})))
        .await;
    check_error(&wrong, "breaks its outputSchema");
    assert!(text_of(&wrong).contains("`/result`"), "{}", text_of(&wrong));

    let missing = exec.execute(&call("measure", json!({}))).await;
    check_error(&missing, "gave no structuredContent");
}
