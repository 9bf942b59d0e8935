//! The stateless Streamable HTTP direct path for `tools/call`: results, errors
//! and refusals compared request by request with rmcp's own
//! `StreamableHttpService` serving the same hub (the reference), notifications
//! written before the result, an open stream for a call still running, a client
//! going away cancelling its call, and the rmcp client over both reply kinds.
#![allow(clippy::unwrap_used)]
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, LoggingLevel, ProtocolVersion, Tool,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use toolrouter::{
    HttpOptions, HttpServer, Hub, JsonObject, McpServer, ServerOptions, ToolError, serve_http,
};

use crate::support::client::Recorder;
use crate::support::text_of;

/// Every test gives up after this long instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

const ACCEPT_BOTH: &str = "application/json, text/event-stream";

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// `echo` (needs a string `text`), `work` (two progress notifications and a
/// log entry, then `done`), and `gated` (one progress notification, then waits
/// for the test's go-ahead).
fn hub(gate: Arc<Notify>) -> Hub {
    let hub = Hub::new();
    let echo = Tool::new(
        "echo",
        "echoes its text",
        Arc::new(object(json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"]
        }))),
    );
    hub.registry()
        .register_fn(echo, |args, _| async move {
            let text = args.get("text").and_then(Value::as_str).unwrap_or("");
            Ok(CallToolResult::success(vec![ContentBlock::text(
                text.to_owned(),
            )]))
        })
        .unwrap();
    let open = Arc::new(object(json!({ "type": "object" })));
    hub.registry()
        .register_fn(
            Tool::new("work", "reports progress", open.clone()),
            |_, ctx| async move {
                ctx.progress(1.0, Some(2.0), Some("half".to_owned())).await;
                ctx.log(LoggingLevel::Info, json!("working")).await;
                ctx.progress(2.0, Some(2.0), None).await;
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .unwrap();
    hub.registry()
        .register_fn(
            Tool::new("gated", "waits for the test", open),
            move |_, ctx| {
                let gate = gate.clone();
                async move {
                    ctx.progress(1.0, None, Some("started".to_owned())).await;
                    gate.notified().await;
                    Ok::<_, ToolError>(CallToolResult::success(vec![ContentBlock::text(
                        "released",
                    )]))
                }
            },
        )
        .unwrap();
    hub
}

async fn ours(hub: &Hub, json_response: bool) -> HttpServer {
    let options = HttpOptions::new("127.0.0.1:0".parse().unwrap())
        .with_sessions(false)
        .with_json_response(json_response);
    serve_http(hub.clone(), ServerOptions::default(), options)
        .await
        .unwrap()
}

/// rmcp's own service over the same hub, configured as `serve_http`
/// configures it: the behaviour the direct path must keep.
async fn reference(hub: &Hub, json_response: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["localhost", "127.0.0.1", "::1"])
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .enforce_origin_validation()
        .with_legacy_session_mode(false)
        .with_json_response(json_response);
    let hub = hub.clone();
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(hub.clone(), ServerOptions::default())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().route_service("/mcp", service);
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}/mcp")
}

/// One raw POST; `headers` replace the defaults (Accept both, JSON body).
struct Post {
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Post {
    fn call(name: &str, arguments: Value) -> Self {
        Self::body(json!({
            "jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": { "name": name, "arguments": arguments }
        }))
    }

    fn body(body: Value) -> Self {
        Self {
            headers: vec![
                ("accept", ACCEPT_BOTH.to_owned()),
                ("content-type", "application/json".to_owned()),
                ("mcp-protocol-version", "2025-11-25".to_owned()),
            ],
            body: body.to_string(),
        }
    }

    fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.retain(|(n, _)| *n != name);
        self.headers.push((name, value.to_owned()));
        self
    }

    fn without(mut self, name: &'static str) -> Self {
        self.headers.retain(|(n, _)| *n != name);
        self
    }
}

/// What a reply says, in a form two servers' replies can be compared in.
#[derive(Debug, PartialEq)]
struct Reply {
    status: u16,
    content_type: Option<String>,
    /// JSON bodies and SSE `data:` payloads parsed; other bodies as text.
    messages: Vec<Value>,
    text: Option<String>,
}

async fn send(url: &str, post: &Post) -> Reply {
    let mut request = reqwest::Client::new().post(url).body(post.body.clone());
    for (name, value) in &post.headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let body = response.text().await.unwrap();
    let mut reply = Reply {
        status,
        content_type: content_type.clone(),
        messages: Vec::new(),
        text: None,
    };
    match content_type.as_deref() {
        Some("application/json") => reply.messages.push(serde_json::from_str(&body).unwrap()),
        Some("text/event-stream") => reply.messages = sse_messages(&body),
        _ => reply.text = Some(body),
    }
    reply
}

/// The JSON payloads of an SSE body's `data:` lines (keep-alive comments and
/// empty priming events skipped).
fn sse_messages(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            let data = data.join("\n");
            (!data.is_empty()).then(|| serde_json::from_str(&data).unwrap())
        })
        .collect()
}

fn result_text(message: &Value) -> &str {
    message["result"]["content"][0]["text"].as_str().unwrap()
}

/// Requests whose replies must not depend on which path answered them.
fn cases(port: u16) -> Vec<(&'static str, Post)> {
    let evil_host = "evil.example".to_owned();
    let loud_host = format!("LocalHost:{port}");
    let ipv6_host = format!("[::1]:{port}");
    let longer_host = format!("localhost.evil.example:{port}");
    let own_origin = format!("http://127.0.0.1:{port}");
    vec![
        ("echo", Post::call("echo", json!({ "text": "hi" }))),
        (
            "echo without a protocol header",
            Post::call("echo", json!({ "text": "hi" })).without("mcp-protocol-version"),
        ),
        (
            "echo at 2024-11-05",
            Post::call("echo", json!({ "text": "old" }))
                .header("mcp-protocol-version", "2024-11-05"),
        ),
        ("unknown tool", Post::call("ecko", json!({}))),
        (
            "invalid arguments",
            Post::call("echo", json!({ "text": 5 })),
        ),
        (
            "missing arguments",
            Post::body(json!({
                "jsonrpc": "2.0", "id": "s", "method": "tools/call", "params": { "name": "echo" }
            })),
        ),
        (
            "no accept",
            Post::call("echo", json!({ "text": "hi" })).without("accept"),
        ),
        (
            "json only",
            Post::call("echo", json!({ "text": "hi" })).header("accept", "application/json"),
        ),
        (
            "sse weighted out",
            Post::call("echo", json!({ "text": "hi" }))
                .header("accept", "application/json, text/event-stream;q=0"),
        ),
        (
            "weighted but accepted",
            Post::call("echo", json!({ "text": "hi" }))
                .header("accept", "application/json;q=0.9, text/event-stream;q=0.5"),
        ),
        (
            "text content type",
            Post::call("echo", json!({ "text": "hi" })).header("content-type", "text/plain"),
        ),
        (
            "unknown protocol version",
            Post::call("echo", json!({ "text": "hi" }))
                .header("mcp-protocol-version", "1999-01-01"),
        ),
        (
            "2026-07-28 header without request metadata",
            Post::call("echo", json!({ "text": "hi" }))
                .header("mcp-protocol-version", "2026-07-28"),
        ),
        (
            "foreign origin",
            Post::call("echo", json!({ "text": "hi" })).header("origin", "http://evil.example"),
        ),
        (
            "own origin",
            Post::call("echo", json!({ "text": "hi" })).header("origin", &own_origin),
        ),
        (
            "foreign host",
            Post::call("echo", json!({ "text": "hi" })).header("host", &evil_host),
        ),
        (
            "own host in capitals",
            Post::call("echo", json!({ "text": "hi" })).header("host", &loud_host),
        ),
        (
            "own host as a bracketed ipv6 address",
            Post::call("echo", json!({ "text": "hi" })).header("host", &ipv6_host),
        ),
        (
            "foreign host that starts like an allowed one",
            Post::call("echo", json!({ "text": "hi" })).header("host", &longer_host),
        ),
        (
            "malformed body",
            Post {
                body: r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"#.to_owned(),
                ..Post::call("echo", json!({}))
            },
        ),
        (
            "batch",
            Post {
                body: json!([{
                    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": { "name": "echo", "arguments": { "text": "hi" } }
                }])
                .to_string(),
                ..Post::call("echo", json!({}))
            },
        ),
        (
            "tools/list",
            Post::body(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" })),
        ),
        (
            "notification",
            Post::body(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })),
        ),
        ("progress and log", {
            Post::body(json!({
                "jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": { "name": "work", "arguments": {}, "_meta": { "progressToken": "p" } }
            }))
        }),
        // Bodies that mention `tools/call` but are not plain calls.
        (
            "call without a name",
            Post::body(json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {} })),
        ),
        (
            "call without params",
            Post::body(json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call" })),
        ),
        (
            "call with a result beside its method",
            Post::body(json!({
                "jsonrpc": "2.0", "id": 4, "method": "tools/call",
                "params": { "name": "echo", "arguments": { "text": "hi" } }, "result": {}
            })),
        ),
        (
            "call of JSON-RPC 1.0",
            Post::body(json!({
                "jsonrpc": "1.0", "id": 4, "method": "tools/call",
                "params": { "name": "echo", "arguments": { "text": "hi" } }
            })),
        ),
        (
            "ping naming tools/call in its meta",
            Post::body(json!({
                "jsonrpc": "2.0", "id": 4, "method": "ping",
                "params": { "_meta": { "note": "tools/call" } }
            })),
        ),
        (
            "call with other meta and unknown fields",
            Post::body(json!({
                "jsonrpc": "2.0", "id": 4, "method": "tools/call", "extra": true,
                "params": {
                    "name": "echo", "arguments": { "text": "meta" }, "more": 1,
                    "_meta": { "progressToken": 5, "vendor/x": "y" }
                }
            })),
        ),
    ]
}

async fn same_replies_as_rmcp(json_response: bool) {
    let hub = hub(Arc::new(Notify::new()));
    let server = ours(&hub, json_response).await;
    let reference = reference(&hub, json_response).await;
    tokio::time::timeout(LIMIT, async {
        for (name, post) in cases(server.local_addr().port()) {
            let got = send(&server.url(), &post).await;
            let want = send(&reference, &post).await;
            if want.status == 415
                && want
                    .text
                    .as_deref()
                    .is_some_and(|t| t.starts_with("fail to deserialize"))
            {
                // The one deliberate difference: a JSON body rmcp
                // cannot read gets HTTP 400 with a JSON-RPC error, not a
                // plain-text 415.
                assert_eq!(got.status, 400, "{name}");
                assert_eq!(got.messages.len(), 1, "{name}");
                let code = &got.messages[0]["error"]["code"];
                assert!(code == -32700 || code == -32600, "{name}: {got:?}");
                continue;
            }
            assert_eq!(got, want, "{name} (json_response = {json_response})");
        }
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn stateless_json_replies_match_rmcp_for_every_case() {
    same_replies_as_rmcp(true).await;
}

#[tokio::test]
async fn stateless_sse_replies_match_rmcp_for_every_case() {
    same_replies_as_rmcp(false).await;
}

#[tokio::test]
async fn a_json_call_is_answered_with_its_result() {
    let hub = hub(Arc::new(Notify::new()));
    let server = ours(&hub, true).await;
    tokio::time::timeout(LIMIT, async {
        let reply = send(&server.url(), &Post::call("echo", json!({ "text": "hi" }))).await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.content_type.as_deref(), Some("application/json"));
        let [message] = reply.messages.as_slice() else {
            panic!("{reply:?}");
        };
        assert_eq!(message["id"], 7);
        assert_eq!(result_text(message), "hi");
        assert_eq!(message["result"]["isError"], false);

        let invalid = send(&server.url(), &Post::call("echo", json!({ "text": 5 }))).await;
        assert_eq!(invalid.messages[0]["result"]["isError"], true);

        let unknown = send(&server.url(), &Post::call("ecko", json!({}))).await;
        assert_eq!(unknown.messages[0]["error"]["code"], -32602);
        let message = unknown.messages[0]["error"]["message"].as_str().unwrap();
        assert!(message.contains("echo"), "{message}");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_sse_call_writes_its_notifications_then_its_result() {
    let hub = hub(Arc::new(Notify::new()));
    for json_response in [false, true] {
        let server = ours(&hub, json_response).await;
        let post = Post::body(json!({
            "jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": { "name": "work", "arguments": {}, "_meta": { "progressToken": "p" } }
        }));
        let reply = tokio::time::timeout(LIMIT, send(&server.url(), &post))
            .await
            .unwrap();
        // Notifications turn even a JSON-preferring reply into a stream.
        assert_eq!(reply.content_type.as_deref(), Some("text/event-stream"));
        let methods: Vec<&str> = reply
            .messages
            .iter()
            .map(|m| m["method"].as_str().unwrap_or("result"))
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/progress",
                "notifications/message",
                "notifications/progress",
                "result"
            ],
            "{reply:?}"
        );
        assert_eq!(reply.messages[0]["params"]["progressToken"], "p");
        assert_eq!(reply.messages[0]["params"]["progress"], 1.0);
        assert_eq!(reply.messages[0]["params"]["message"], "half");
        assert_eq!(reply.messages[1]["params"]["data"], "working");
        assert_eq!(reply.messages[2]["params"]["progress"], 2.0);
        assert_eq!(result_text(&reply.messages[3]), "done");
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn a_running_call_streams_its_progress_before_it_ends() {
    let gate = Arc::new(Notify::new());
    let hub = hub(gate.clone());
    let server = ours(&hub, false).await;
    tokio::time::timeout(LIMIT, async {
        let post = Post::body(json!({
            "jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": { "name": "gated", "arguments": {}, "_meta": { "progressToken": 9 } }
        }));
        let mut request = reqwest::Client::new().post(server.url()).body(post.body);
        for (name, value) in &post.headers {
            request = request.header(*name, value);
        }
        let mut response = request.send().await.unwrap();
        assert_eq!(
            response.headers()["content-type"].to_str().unwrap(),
            "text/event-stream"
        );
        // The progress event arrives while the handler still waits.
        let mut seen = String::new();
        while !seen.contains("\n\n") {
            let chunk = response.chunk().await.unwrap().unwrap();
            seen.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        let first = sse_messages(&seen);
        assert_eq!(first.len(), 1, "{seen}");
        assert_eq!(first[0]["method"], "notifications/progress");
        assert_eq!(first[0]["params"]["progressToken"], 9);
        gate.notify_one();
        while let Some(chunk) = response.chunk().await.unwrap() {
            seen.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        let all = sse_messages(&seen);
        assert_eq!(all.len(), 2, "{seen}");
        assert_eq!(result_text(&all[1]), "released");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_rmcp_client_calls_lists_and_hears_progress_in_both_modes() {
    let hub = hub(Arc::new(Notify::new()));
    for json_response in [true, false] {
        let server = ours(&hub, json_response).await;
        tokio::time::timeout(LIMIT, async {
            let (events, mut heard) = mpsc::unbounded_channel();
            let client = Recorder {
                version: ProtocolVersion::V_2025_11_25,
                events,
                elicitation: None,
            }
            .serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .unwrap();
            let tools = client.list_all_tools().await.unwrap();
            let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            names.sort_unstable();
            assert_eq!(names, ["echo", "gated", "work"]);
            for text in ["one", "two", "three"] {
                let result = client
                    .call_tool(
                        CallToolRequestParams::new("echo")
                            .with_arguments(object(json!({ "text": text }))),
                    )
                    .await
                    .unwrap();
                assert_eq!(text_of(&result), text);
            }
            let result = client
                .call_tool(CallToolRequestParams::new("work").with_arguments(JsonObject::new()))
                .await
                .unwrap();
            assert_eq!(text_of(&result), "done");
            let mut got = Vec::new();
            while got.len() < 3 {
                got.push(heard.recv().await.unwrap());
            }
            got.sort();
            assert_eq!(got, ["log \"working\"", "progress 1", "progress 2"]);
            client.cancel().await.unwrap();
        })
        .await
        .unwrap();
        server.shutdown().await.unwrap();
    }
}

/// Calls `work` with a progress callback through the Python SDK and prints the
/// text and the progress it heard as one JSON line.
const PY_PROGRESS: &str = r#"
import json, sys
import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url):
    progress = []
    async def on_progress(value, total, message):
        progress.append([value, total, message])
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            result = await session.call_tool("work", {}, progress_callback=on_progress)
            await anyio.sleep(0.2)
            text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            print(json.dumps({"text": text, "progress": progress}))

anyio.run(main, sys.argv[1])
"#;

async fn run_python(args: Vec<String>) -> (bool, String, String) {
    let python = crate::support::ext::python_with_mcp();
    let output = tokio::time::timeout(
        LIMIT,
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(python)
                .args(args)
                .output()
                .unwrap()
        }),
    )
    .await
    .unwrap()
    .unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_calls_through_the_direct_path_in_both_modes() {
    let hub = hub(Arc::new(Notify::new()));
    let pyclient = crate::support::pyclient();
    for json_response in [true, false] {
        let server = ours(&hub, json_response).await;
        let (ok, stdout, stderr) = run_python(vec![
            pyclient.display().to_string(),
            "--url".into(),
            server.url(),
            "--expect-tool".into(),
            "echo".into(),
            "--call".into(),
            "echo".into(),
            "--args".into(),
            r#"{"text":"from python"}"#.into(),
            "--expect-text".into(),
            "from python".into(),
        ])
        .await;
        assert!(ok, "pyclient failed: {stdout}\n{stderr}");
        assert!(stdout.contains("pyclient: OK"), "{stdout}");

        let (ok, stdout, stderr) =
            run_python(vec!["-c".into(), PY_PROGRESS.into(), server.url()]).await;
        assert!(ok, "python client failed: {stderr}\n{stdout}");
        let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();
        assert_eq!(report["text"], "done");
        assert_eq!(
            report["progress"],
            json!([[1.0, 2.0, "half"], [2.0, 2.0, null]]),
            "json_response = {json_response}"
        );
        server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn the_bearer_token_guards_the_direct_path_too() {
    let hub = hub(Arc::new(Notify::new()));
    let options = HttpOptions::new("127.0.0.1:0".parse().unwrap())
        .with_sessions(false)
        .with_json_response(true)
        .with_bearer_token("s3cret");
    let server = serve_http(hub, ServerOptions::default(), options)
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, async {
        let call = Post::call("echo", json!({ "text": "hi" }));
        let refused = send(&server.url(), &call).await;
        assert_eq!(refused.status, 401, "{refused:?}");
        let wrong = send(&server.url(), &call.header("authorization", "Bearer nope")).await;
        assert_eq!(wrong.status, 401, "{wrong:?}");
        let call =
            Post::call("echo", json!({ "text": "hi" })).header("authorization", "Bearer s3cret");
        let served = send(&server.url(), &call).await;
        assert_eq!(served.status, 200, "{served:?}");
        assert_eq!(result_text(&served.messages[0]), "hi");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

/// A client that goes away before its reply cancels the call, whether the
/// reply was still held back (JSON) or already streaming (SSE, after a
/// progress event): the handler sees its call cancelled and stops.
#[tokio::test]
async fn a_client_that_goes_away_cancels_its_call() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// Reports, when the handler's future is dropped, whether its call had
    /// been cancelled by then.
    struct OnDrop(toolrouter::ToolContext, mpsc::UnboundedSender<bool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.is_cancelled());
        }
    }

    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let (stopped_tx, mut stopped) = mpsc::unbounded_channel::<bool>();
    let hub = Hub::new();
    hub.registry()
        .register_fn(
            Tool::new(
                "watched",
                "waits until cancelled",
                Arc::new(object(json!({ "type": "object" }))),
            ),
            move |_, ctx: toolrouter::ToolContext| {
                let (started_tx, stopped_tx) = (started_tx.clone(), stopped_tx.clone());
                async move {
                    let _guard = OnDrop(ctx.clone(), stopped_tx);
                    ctx.progress(1.0, None, Some("started".to_owned())).await;
                    let _ = started_tx.send(());
                    ctx.cancelled().await;
                    Ok::<_, ToolError>(CallToolResult::success(vec![]))
                }
            },
        )
        .unwrap();
    for json_response in [true, false] {
        let server = ours(&hub, json_response).await;
        tokio::time::timeout(LIMIT, async {
            // With a progress token the reply streams from the first event; without
            // one (and with JSON replies on) nothing is written until the result.
            let mut params = json!({ "name": "watched", "arguments": {} });
            if !json_response {
                params["_meta"] = json!({ "progressToken": 1 });
            }
            let body = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params })
                .to_string();
            let addr = server.local_addr();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: {ACCEPT_BOTH}\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            stream.write_all(request.as_bytes()).await.unwrap();
            started.recv().await.unwrap();
            if !json_response {
                // The reply is streaming: its progress event has been written.
                let mut seen = Vec::new();
                while !String::from_utf8_lossy(&seen).contains("notifications/progress") {
                    let mut chunk = [0u8; 1024];
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
                    seen.extend_from_slice(&chunk[..n]);
                }
            }
            drop(stream);
            let was_cancelled = stopped.recv().await.expect("the handler stopped");
            assert!(was_cancelled, "json_response {json_response}: the call was cancelled");
        })
        .await
        .unwrap();
        server.shutdown().await.unwrap();
    }
}
