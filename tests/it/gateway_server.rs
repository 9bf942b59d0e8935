//! Upstream tools through the executor and behind the embedded MCP server: the
//! gateway makes them ordinary registry entries, so every executor path runs
//! them, and an MCP client sees one server with the union of the tools.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::StreamExt;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock,
    ProgressNotificationParam, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;
use toolrouter::{Gateway, HttpOptions, Hub, ServerOptions, ToolCall, WireFormat, serve_http};
use toolrouter::{StdioTransport, UpstreamConfig, UpstreamState, UpstreamTransport};

use crate::gateway::{EVERYTHING, HANG_GUARD, args, config, fixture, wait_for, wait_for_text};
use crate::support::ext;
use crate::support::text_of;

fn call_of(name: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall::new(
        toolrouter::new_call_id(),
        name,
        Some(args(arguments)),
        WireFormat::OpenAiFunction,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_tools_run_through_the_executor() {
    let hub = Hub::new();
    let config = config(vec![
        fixture("fx", "serve").with_timeout(Duration::from_millis(300)),
        fixture("fy", "serve"),
    ]);
    let gateway = tokio::time::timeout(HANG_GUARD, Gateway::start(&config, hub.registry().clone()))
        .await
        .expect("started");
    let executor = hub.executor();

    let out = executor
        .execute(&call_of("fx__echo", json!({"text": "via executor"})))
        .await;
    assert_ne!(out.is_error, Some(true), "{}", text_of(&out));
    assert_eq!(text_of(&out), "via executor");

    // The executor validates against the upstream's schema before forwarding.
    let out = executor
        .execute(&call_of("fx__echo", json!({"text": 5})))
        .await;
    assert_eq!(out.is_error, Some(true));
    assert!(
        text_of(&out).starts_with("invalid arguments for tool `fx__echo`"),
        "{}",
        text_of(&out)
    );

    // The per-server timeout applies, and the upstream is told to stop.
    let out = executor
        .execute(&call_of("fx__slow", json!({"seconds": 600})))
        .await;
    assert_eq!(out.is_error, Some(true));
    assert!(text_of(&out).contains("timed out"), "{}", text_of(&out));
    wait_for_text(hub.registry(), "fx__cancellations", "1").await;

    // A killed upstream gives an isError result for the call in flight.
    let pid = gateway.upstream("fy").and_then(|s| s.pid).expect("pid");
    let executor2 = hub.executor().clone();
    let in_flight = tokio::spawn(async move {
        executor2
            .execute(&call_of("fy__slow", json!({"seconds": 600})))
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let out = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("no hang")
        .expect("task");
    assert_eq!(out.is_error, Some(true));
    assert!(text_of(&out).contains("upstream `fy`"), "{}", text_of(&out));
    wait_for(&gateway, "the restart", |s| {
        s[1].state == UpstreamState::Ready && s[1].connections == 2
    })
    .await;
    let out = executor
        .execute(&call_of("fy__echo", json!({"text": "again"})))
        .await;
    assert_eq!(text_of(&out), "again");
    gateway.shutdown().await;
}

/// An MCP client that counts `tools/list_changed` and routes progress.
#[derive(Clone, Default)]
struct TestClient {
    progress: ProgressDispatcher,
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for TestClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.handle_notification(params).await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

fn first_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_server_presents_local_and_upstream_tools_as_one() {
    let everything = ext::npm_bin(EVERYTHING, "mcp-server-everything");
    let hub = Hub::new();
    hub.registry()
        .register_fn(
            Tool::new(
                "local_hello",
                "Says hello.",
                Arc::new(args(json!({"type": "object"}))),
            ),
            |_args, _ctx| async { Ok(CallToolResult::success(vec![ContentBlock::text("hello")])) },
        )
        .expect("local tool");
    let config = config(vec![
        fixture("fx", "serve"),
        UpstreamConfig::new(
            "everything",
            UpstreamTransport::Stdio(StdioTransport::new(everything.to_string_lossy(), ["stdio"])),
        ),
    ]);
    let gateway = tokio::time::timeout(HANG_GUARD, Gateway::start(&config, hub.registry().clone()))
        .await
        .expect("started");
    let server = serve_http(
        hub.clone(),
        ServerOptions::default(),
        HttpOptions::new(([127, 0, 0, 1], 0).into()),
    )
    .await
    .expect("serve");
    let client = TestClient::default();
    let list_changed = client.list_changed.clone();
    let service = client
        .serve(StreamableHttpClientTransport::from_uri(server.url()))
        .await
        .expect("client connected");

    let tools = service.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "local_hello",
        "fx__echo",
        "fx__slow",
        "everything__get-sum",
        "everything__echo",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }

    let call = |name: &str, arguments: serde_json::Value| {
        CallToolRequestParams::new(name.to_owned()).with_arguments(args(arguments))
    };
    let out = service
        .call_tool(call("local_hello", json!({})))
        .await
        .expect("local");
    assert_eq!(first_text(&out), "hello");
    let out = service
        .call_tool(call("everything__get-sum", json!({"a": 2, "b": 3})))
        .await
        .expect("everything");
    assert_eq!(first_text(&out), "The sum of 2 and 3 is 5.");
    let out = service
        .call_tool(call("fx__echo", json!({"text": "relayed"})))
        .await
        .expect("fx");
    assert_eq!(first_text(&out), "relayed");

    // Upstream progress travels upstream -> gateway -> executor -> MCP client.
    let handle = service
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(call(
                "fx__slow",
                json!({"seconds": 0.5}),
            ))),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("sent");
    let mut progress = service
        .service()
        .progress
        .subscribe(handle.progress_token.clone())
        .await;
    let first = tokio::time::timeout(HANG_GUARD, progress.next())
        .await
        .expect("progress arrives")
        .expect("a progress notification");
    assert_eq!(first.total, Some(5.0));
    let result = handle.await_response().await.expect("slow result");
    match result {
        ServerResult::CallToolResult(r) => assert_eq!(first_text(&r), "slept 0.5 seconds"),
        other => panic!("unexpected result {other:?}"),
    }

    // An upstream's list change reaches the MCP client as its own list change.
    let before = list_changed.load(Ordering::SeqCst);
    service
        .call_tool(call("fx__add_tool", json!({"name": "extra"})))
        .await
        .expect("add_tool");
    tokio::time::timeout(HANG_GUARD, async {
        loop {
            if list_changed.load(Ordering::SeqCst) > before {
                let tools = service.list_all_tools().await.expect("tools/list");
                if tools.iter().any(|t| t.name == "fx__extra") {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the client sees the new tool");
    let out = service
        .call_tool(call("fx__extra", json!({})))
        .await
        .expect("extra");
    assert_eq!(first_text(&out), "extra ran");

    let _ = service.cancel().await;
    server.shutdown().await.expect("server shutdown");
    gateway.shutdown().await;
}
