//! The embedded MCP server over Streamable HTTP on 127.0.0.1, driven by a real
//! rmcp client: timeouts, panics, cancellation, elicitation, list_changed,
//! DNS-rebinding and bearer-token refusals, and SSE latency (TCP_NODELAY).
#![allow(clippy::unwrap_used)]
#![allow(deprecated)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::client::Recorder;
use crate::support::text_of;
use rmcp::ServiceExt as _;
use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ClientRequest, ContentBlock,
    ElicitationAction, ProtocolVersion, Tool,
};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use tokio::sync::mpsc;
use toolrouter::{
    Elicitation, HttpOptions, HttpServer, Hub, JsonObject, ServerOptions, ToolContext, ToolError,
    serve_http,
};

/// Every test gives up after this long instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn tool(name: &str) -> Tool {
    Tool::new(
        name.to_owned(),
        "test tool",
        Arc::new(object(json!({ "type": "object" }))),
    )
}

async fn start(hub: &Hub) -> HttpServer {
    let addr = "127.0.0.1:0".parse().unwrap();
    serve_http(
        hub.clone(),
        ServerOptions::default(),
        HttpOptions::new(addr),
    )
    .await
    .unwrap()
}

async fn connect(
    server: &HttpServer,
    answer: ElicitationAction,
) -> (
    RunningService<RoleClient, Recorder>,
    mpsc::UnboundedReceiver<String>,
) {
    let (events, rx) = mpsc::unbounded_channel();
    let transport = StreamableHttpClientTransport::from_uri(server.url());
    let client = Recorder {
        version: ProtocolVersion::V_2025_11_25,
        events,
        elicitation: Some(answer),
    }
    .serve(transport)
    .await
    .unwrap();
    (client, rx)
}

async fn call(client: &RunningService<RoleClient, Recorder>, name: &str) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(JsonObject::new()))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_timed_out_call_is_an_error_result_and_the_server_keeps_serving() {
    let hub = Hub::new();
    let slow = toolrouter::RegisteredTool::new(
        tool("slow"),
        Some(Arc::new(toolrouter::FnHandler::new(|_, _| async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(CallToolResult::success(vec![]))
        }))),
    )
    .unwrap()
    .with_timeout(Duration::from_millis(200));
    hub.registry().insert(slow);
    hub.registry()
        .register_fn(tool("quick"), |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::text(
                "still here",
            )]))
        })
        .unwrap();
    let server = start(&hub).await;
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    tokio::time::timeout(LIMIT, async {
        let timed_out = call(&client, "slow").await;
        assert_eq!(timed_out.is_error, Some(true));
        assert!(
            text_of(&timed_out).contains("timed out"),
            "{}",
            text_of(&timed_out)
        );
        assert_eq!(text_of(&call(&client, "quick").await), "still here");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_panicking_handler_does_not_take_the_server_down() {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("boom"), |_, _| async {
            if std::hint::black_box(true) {
                panic!("handler exploded");
            }
            Ok(CallToolResult::success(vec![]))
        })
        .unwrap();
    hub.registry()
        .register_fn(tool("quick"), |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
        })
        .unwrap();
    let server = start(&hub).await;
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    tokio::time::timeout(LIMIT, async {
        let result = call(&client, "boom").await;
        assert_eq!(result.is_error, Some(true));
        assert!(text_of(&result).contains("handler exploded"));
        assert_eq!(text_of(&call(&client, "quick").await), "ok");
        // A second client can still connect.
        let (other, _) = connect(&server, ElicitationAction::Decline).await;
        assert_eq!(text_of(&call(&other, "quick").await), "ok");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_request_cancels_the_handler() {
    let hub = Hub::new();
    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let (stopped_tx, mut stopped) = mpsc::unbounded_channel::<bool>();
    /// Reports, when the handler's future is dropped, whether its call had
    /// been cancelled by then.
    struct OnDrop(ToolContext, mpsc::UnboundedSender<bool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.is_cancelled());
        }
    }
    hub.registry()
        .register_fn(tool("wait"), move |_, ctx: ToolContext| {
            let (started_tx, stopped_tx) = (started_tx.clone(), stopped_tx.clone());
            async move {
                let _guard = OnDrop(ctx.clone(), stopped_tx);
                let _ = started_tx.send(());
                ctx.cancelled().await;
                Ok(CallToolResult::success(vec![]))
            }
        })
        .unwrap();
    let server = start(&hub).await;
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    tokio::time::timeout(LIMIT, async {
        let request = ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
            CallToolRequestParams::new("wait").with_arguments(JsonObject::new()),
        ));
        let handle = client
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        started.recv().await.unwrap();
        handle
            .cancel(Some("test cancels".to_owned()))
            .await
            .unwrap();
        let was_cancelled = stopped.recv().await.expect("the handler stopped");
        assert!(
            was_cancelled,
            "the handler stopped because its call was cancelled"
        );
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

fn elicitation_hub() -> Hub {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("ask_name"), |_, ctx: ToolContext| async move {
            let form = json!({
                "type": "object",
                "properties": { "name": { "type": "string" } },
                "required": ["name"]
            });
            let answer = match ctx.elicit_form("Your name?", form).await? {
                Elicitation::Accept(content) => format!("accepted {}", content["name"]),
                Elicitation::Decline => "declined".to_owned(),
                Elicitation::Cancel => "cancelled".to_owned(),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(answer)]))
        })
        .unwrap();
    hub.registry()
        .register_fn(tool("ask_nested"), |_, ctx: ToolContext| async move {
            // Nested objects are outside MCP's flat elicitation schema.
            let form = json!({
                "type": "object",
                "properties": { "address": { "type": "object", "properties": {} } }
            });
            ctx.elicit_form("Address?", form).await?;
            Err(ToolError::new("unreachable: the schema should be refused"))
        })
        .unwrap();
    hub
}

#[tokio::test]
async fn elicitation_round_trips_with_accept_decline_and_cancel() {
    let hub = elicitation_hub();
    let server = start(&hub).await;
    tokio::time::timeout(LIMIT, async {
        for (action, expect) in [
            (ElicitationAction::Accept, "accepted \"Ada\""),
            (ElicitationAction::Decline, "declined"),
            (ElicitationAction::Cancel, "cancelled"),
        ] {
            let (client, mut events) = connect(&server, action).await;
            let result = call(&client, "ask_name").await;
            assert_eq!(result.is_error, Some(false), "{}", text_of(&result));
            assert_eq!(text_of(&result), expect);
            assert_eq!(events.recv().await.as_deref(), Some("elicitation"));
        }
        // A schema outside the restricted form is refused before sending.
        let (client, mut events) = connect(&server, ElicitationAction::Accept).await;
        let result = call(&client, "ask_nested").await;
        assert_eq!(result.is_error, Some(true));
        assert!(
            text_of(&result).contains("invalid elicitation schema"),
            "{}",
            text_of(&result)
        );
        assert!(
            events.try_recv().is_err(),
            "no elicitation may reach the client"
        );
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn list_changed_reaches_a_connected_client_when_a_tool_is_added() {
    let hub = Hub::new();
    let server = start(&hub).await;
    let (client, mut events) = connect(&server, ElicitationAction::Decline).await;
    tokio::time::timeout(LIMIT, async {
        // The forwarder starts on `notifications/initialized`; a request after
        // it proves the server has processed it.
        assert!(client.list_all_tools().await.unwrap().is_empty());
        hub.registry()
            .register_fn(tool("late"), |_, _| async {
                Ok(CallToolResult::success(vec![]))
            })
            .unwrap();
        loop {
            if events.recv().await.as_deref() == Some("tools/list_changed") {
                break;
            }
        }
        let names: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(names, ["late"]);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_is_an_invalid_params_error_naming_close_tools() {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("read_file"), |_, _| async {
            Ok(CallToolResult::success(vec![]))
        })
        .unwrap();
    let server = start(&hub).await;
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    let err = tokio::time::timeout(
        LIMIT,
        client.call_tool(CallToolRequestParams::new("read_fil").with_arguments(JsonObject::new())),
    )
    .await
    .unwrap()
    .unwrap_err();
    let rmcp::service::ServiceError::McpError(data) = err else {
        panic!("expected a JSON-RPC error, got {err:?}");
    };
    assert_eq!(data.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert!(data.message.contains("read_file"), "{}", data.message);
    server.shutdown().await.unwrap();
}

fn initialize_body() -> serde_json::Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" }
        }
    })
}

async fn post_initialize(url: &str, headers: &[(&str, &str)]) -> reqwest::StatusCode {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(&initialize_body());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.send().await.unwrap().status()
}

#[tokio::test]
async fn a_foreign_origin_or_host_is_refused() {
    let hub = Hub::new();
    let server = start(&hub).await;
    let url = server.url();
    let own_origin = format!("http://127.0.0.1:{}", server.local_addr().port());
    tokio::time::timeout(LIMIT, async {
        let evil = post_initialize(&url, &[("Origin", "http://evil.example")]).await;
        assert_eq!(evil, reqwest::StatusCode::FORBIDDEN);
        let rebound = post_initialize(&url, &[("Host", "evil.example")]).await;
        assert!(rebound.is_client_error(), "{rebound}");
        let own = post_initialize(&url, &[("Origin", own_origin.as_str())]).await;
        assert!(own.is_success(), "{own}");
        let no_origin = post_initialize(&url, &[]).await;
        assert!(no_origin.is_success(), "{no_origin}");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_bearer_token_is_required_when_set() {
    let hub = Hub::new();
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(
        hub,
        ServerOptions::default(),
        HttpOptions::new(addr).with_bearer_token("s3cret"),
    )
    .await
    .unwrap();
    let url = server.url();
    tokio::time::timeout(LIMIT, async {
        assert_eq!(
            post_initialize(&url, &[]).await,
            reqwest::StatusCode::UNAUTHORIZED
        );
        let wrong = post_initialize(&url, &[("Authorization", "Bearer nope")]).await;
        assert_eq!(wrong, reqwest::StatusCode::UNAUTHORIZED);
        let right = post_initialize(&url, &[("Authorization", "Bearer s3cret")]).await;
        assert!(right.is_success(), "{right}");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_non_loopback_bind_needs_allow_remote() {
    let addr = "0.0.0.0:0".parse().unwrap();
    let err = serve_http(Hub::new(), ServerOptions::default(), HttpOptions::new(addr))
        .await
        .unwrap_err();
    assert!(
        matches!(err, toolrouter::ServeError::RemoteBindRefused(_)),
        "{err}"
    );
}

/// Meant to guard TCP_NODELAY: with Nagle on, an SSE reply written in pieces
/// can wait ~40 ms for the client's delayed ACK on every call. The bound is
/// generous (the median of 20 calls under 35 ms); this is not a benchmark.
/// Note: on the development machine (Linux loopback, rmcp 3.9 with reqwest,
/// and the Python SDK) no stall showed even with NODELAY off, so this test
/// catches a latency regression but cannot by itself prove NODELAY is set.
#[tokio::test]
async fn sequential_sse_calls_do_not_wait_for_delayed_acks() {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("echo"), |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("pong")]))
        })
        .unwrap();
    // Stateless SSE: every reply is its own event stream (headers, priming
    // event, message, end), written in several pieces.
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(
        hub.clone(),
        ServerOptions::default(),
        HttpOptions::new(addr).with_sessions(false),
    )
    .await
    .unwrap();
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    let mut took = Vec::new();
    tokio::time::timeout(LIMIT, async {
        call(&client, "echo").await;
        for _ in 0..20 {
            let started = Instant::now();
            assert_eq!(text_of(&call(&client, "echo").await), "pong");
            took.push(started.elapsed());
        }
    })
    .await
    .unwrap();
    took.sort();
    let median = took[took.len() / 2];
    assert!(
        median < Duration::from_millis(35),
        "median SSE call took {median:?}: {took:?}"
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn tools_list_is_paginated_and_a_client_gets_every_page() {
    let hub = Hub::new();
    for name in ["e", "a", "d", "b", "c"] {
        hub.registry()
            .register_fn(tool(name), |_, _| async {
                Ok(CallToolResult::success(vec![]))
            })
            .unwrap();
    }
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = serve_http(
        hub,
        ServerOptions::default().with_page_size(2),
        HttpOptions::new(addr),
    )
    .await
    .unwrap();
    let (client, _) = connect(&server, ElicitationAction::Decline).await;
    tokio::time::timeout(LIMIT, async {
        let first = client.list_tools(None).await.unwrap();
        let names: Vec<String> = first.tools.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(first.next_cursor.is_some());
        let all: Vec<String> = client
            .list_all_tools()
            .await
            .unwrap()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        assert_eq!(all, ["a", "b", "c", "d", "e"]);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

/// A client that reports `notifications/resources/updated`.
#[derive(Clone)]
struct UpdateWatcher(mpsc::UnboundedSender<String>);

impl ClientHandler for UpdateWatcher {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2025_11_25;
        config
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

#[tokio::test]
async fn a_subscribed_client_hears_resource_updates_and_only_those() {
    let hub = Hub::new();
    for uri in ["test://watched", "test://other"] {
        hub.resources()
            .register_text(rmcp::model::Resource::new(uri, uri), "content");
    }
    let server = start(&hub).await;
    let (events, mut updates) = mpsc::unbounded_channel();
    let client = UpdateWatcher(events)
        .serve(StreamableHttpClientTransport::from_uri(server.url()))
        .await
        .unwrap();
    tokio::time::timeout(LIMIT, async {
        client
            .subscribe(rmcp::model::SubscribeRequestParams::new("test://watched"))
            .await
            .unwrap();
        let unknown = client
            .subscribe(rmcp::model::SubscribeRequestParams::new("test://missing"))
            .await;
        assert!(
            unknown.is_err(),
            "subscribing to an unknown resource is refused"
        );
        hub.resources().notify_updated("test://other");
        hub.resources().notify_updated("test://watched");
        assert_eq!(updates.recv().await.as_deref(), Some("test://watched"));
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn older_clients_negotiate_their_own_protocol_version() {
    let hub = Hub::new();
    let server = start(&hub).await;
    let url = server.url();
    tokio::time::timeout(LIMIT, async {
        for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            let mut body = initialize_body();
            body["params"]["protocolVersion"] = json!(version);
            let response = reqwest::Client::new()
                .post(&url)
                .header("Accept", "application/json, text/event-stream")
                .json(&body)
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success());
            let text = response.text().await.unwrap();
            let data = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .find(|l| l.contains("protocolVersion"))
                .unwrap_or_else(|| panic!("no initialize result in {text}"));
            let reply: serde_json::Value = serde_json::from_str(data).unwrap();
            assert_eq!(reply["result"]["protocolVersion"], version);
            assert_eq!(reply["result"]["serverInfo"]["name"], "toolrouter");
        }
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_session_has_an_id_a_get_stream_and_ends_with_delete() {
    let hub = Hub::new();
    let server = start(&hub).await;
    let url = server.url();
    let http = reqwest::Client::new();
    tokio::time::timeout(LIMIT, async {
        let init = http
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .json(&initialize_body())
            .send()
            .await
            .unwrap();
        assert!(init.status().is_success());
        let session = init
            .headers()
            .get("mcp-session-id")
            .expect("a session id")
            .to_str()
            .unwrap()
            .to_owned();
        drop(init);
        let with_session = |req: reqwest::RequestBuilder| {
            req.header("Mcp-Session-Id", &session)
                .header("MCP-Protocol-Version", "2025-11-25")
                .header("Accept", "application/json, text/event-stream")
        };
        let initialized = with_session(http.post(&url))
            .json(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .send()
            .await
            .unwrap();
        assert_eq!(initialized.status(), reqwest::StatusCode::ACCEPTED);
        let stream = with_session(http.get(&url)).send().await.unwrap();
        assert!(stream.status().is_success(), "{}", stream.status());
        let content_type = stream.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        drop(stream);
        let deleted = with_session(http.delete(&url)).send().await.unwrap();
        assert_eq!(deleted.status(), reqwest::StatusCode::NO_CONTENT);
        let after = with_session(http.post(&url))
            .json(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }))
            .send()
            .await
            .unwrap();
        assert_eq!(after.status(), reqwest::StatusCode::NOT_FOUND);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

/// The JSON-RPC messages of a reply body: one JSON object, or the `data:`
/// lines of an event stream.
fn messages_of(body: &str) -> Vec<serde_json::Value> {
    if body.trim_start().starts_with('{') {
        return vec![serde_json::from_str(body).unwrap()];
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

async fn post_raw(
    url: &str,
    body: impl Into<reqwest::Body>,
    session: Option<&str>,
) -> (reqwest::StatusCode, Option<String>, String, Option<String>) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body);
    if let Some(id) = session {
        request = request
            .header("Mcp-Session-Id", id)
            .header("MCP-Protocol-Version", "2025-11-25");
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header("content-type");
    let session = header("mcp-session-id");
    (
        status,
        content_type,
        response.text().await.unwrap(),
        session,
    )
}

/// In every HTTP mode a body that is not JSON gets HTTP 400
/// with a JSON-RPC parse error (-32700, id null), not a plain-text 415; a
/// `tools/call` whose arguments are not an object gets -32602 for its id.
#[tokio::test]
async fn bad_bodies_get_json_rpc_errors_in_every_mode() {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("echo"), |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
        })
        .unwrap();
    let addr = "127.0.0.1:0".parse().unwrap();
    for (mode, options) in [
        ("sessions", HttpOptions::new(addr)),
        ("stateless", HttpOptions::new(addr).with_sessions(false)),
        (
            "stateless json",
            HttpOptions::new(addr)
                .with_sessions(false)
                .with_json_response(true),
        ),
    ] {
        let server = serve_http(hub.clone(), ServerOptions::default(), options)
            .await
            .unwrap();
        let url = server.url();
        for body in [
            &b"this is not json"[..],
            b"{\"jsonrpc\":",
            b"{\"id\":1,\"x\":\"\xff\"}",
        ] {
            let (status, content_type, text, _) = post_raw(&url, body.to_vec(), None).await;
            assert_eq!(status, 400, "{mode}: {text}");
            assert_eq!(content_type.as_deref(), Some("application/json"), "{mode}");
            let reply: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(reply["error"]["code"], -32700, "{mode}: {text}");
            assert_eq!(reply["id"], serde_json::Value::Null, "{mode}: {text}");
            assert_eq!(reply["jsonrpc"], "2.0", "{mode}: {text}");
        }
        let session = if mode == "sessions" {
            let (status, _, _, session) = post_raw(&url, initialize_body().to_string(), None).await;
            assert_eq!(status, 200);
            let session = session.unwrap();
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            post_raw(&url, initialized.to_string(), Some(&session)).await;
            Some(session)
        } else {
            None
        };
        for (id, arguments) in [(7, json!([1])), (8, json!("text"))] {
            let call = json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "echo", "arguments": arguments }
            });
            let (_, _, text, _) = post_raw(&url, call.to_string(), session.as_deref()).await;
            let reply = messages_of(&text)
                .into_iter()
                .find(|m| m.get("error").is_some() || m.get("result").is_some())
                .unwrap_or_else(|| panic!("{mode}: no reply in {text}"));
            assert_eq!(reply["error"]["code"], -32602, "{mode}: {text}");
            assert_eq!(reply["id"], id, "{mode}: {text}");
        }
        server.shutdown().await.unwrap();
    }
}
