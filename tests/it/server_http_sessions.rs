//! Sessions mode's direct path for `tools/call`: a plain call of an
//! initialized session runs on that session's own server (its log level),
//! `notifications/cancelled` reaches it, calls keep the session alive, `DELETE`
//! ends it, and a client that can be asked for something keeps rmcp's path.
#![allow(clippy::unwrap_used)]
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, LoggingLevel, Tool};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolrouter::{
    HttpOptions, HttpServer, Hub, JsonObject, ServerOptions, ToolContext, serve_http,
};

/// Every test gives up after this long instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

fn open_schema() -> Arc<JsonObject> {
    let Value::Object(map) = json!({ "type": "object" }) else {
        unreachable!()
    };
    Arc::new(map)
}

/// `note` (logs `noted` at `info`, answers `ok`) and `wait` (reports when it
/// starts, then waits to be cancelled and reports whether it was).
fn hub(started: mpsc::UnboundedSender<()>, stopped: mpsc::UnboundedSender<bool>) -> Hub {
    let hub = Hub::new();
    hub.registry()
        .register_fn(
            Tool::new("note", "logs a line", open_schema()),
            |_, ctx: ToolContext| async move {
                ctx.log(LoggingLevel::Info, json!("noted")).await;
                Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
            },
        )
        .unwrap();
    /// Reports, when the handler's future is dropped, whether its call had
    /// been cancelled by then.
    struct OnDrop(ToolContext, mpsc::UnboundedSender<bool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.is_cancelled());
        }
    }
    hub.registry()
        .register_fn(
            Tool::new("wait", "waits to be cancelled", open_schema()),
            move |_, ctx: ToolContext| {
                let (started, stopped) = (started.clone(), stopped.clone());
                async move {
                    let _guard = OnDrop(ctx.clone(), stopped);
                    let _ = started.send(());
                    ctx.cancelled().await;
                    Ok(CallToolResult::success(vec![]))
                }
            },
        )
        .unwrap();
    hub
}

async fn start(hub: &Hub, expiry: Option<Duration>) -> HttpServer {
    let options = HttpOptions::new("127.0.0.1:0".parse().unwrap()).with_session_idle_expiry(expiry);
    serve_http(hub.clone(), ServerOptions::default(), options)
        .await
        .unwrap()
}

/// A client speaking raw Streamable HTTP in one session.
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

impl Session {
    /// `initialize` with `capabilities`, then `notifications/initialized`.
    async fn open(server: &HttpServer, capabilities: Value) -> Self {
        let http = reqwest::Client::new();
        let response = http
            .post(server.url())
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(
                json!({
                    "jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25", "capabilities": capabilities,
                        "clientInfo": { "name": "t", "version": "1" }
                    }
                })
                .to_string(),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let id = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = Self {
            http,
            url: server.url(),
            id,
        };
        let (status, _) = session
            .post(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        assert_eq!(status, 202);
        session
    }

    /// POSTs `message` in the session; the status and the body.
    async fn post(&self, message: Value) -> (u16, String) {
        let response = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Mcp-Session-Id", &self.id)
            .body(message.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.text().await.unwrap())
    }

    /// Calls `name` as request `id`; the status and the SSE messages.
    async fn call(&self, id: u64, name: &str) -> (u16, Vec<Value>) {
        let (status, body) = self
            .post(json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": name, "arguments": {} }
            }))
            .await;
        (status, messages(&body))
    }

    async fn set_level(&self, level: &str) {
        let (status, body) = self
            .post(json!({
                "jsonrpc": "2.0", "id": 99, "method": "logging/setLevel",
                "params": { "level": level }
            }))
            .await;
        assert_eq!(status, 200, "{body}");
    }
}

/// The JSON messages of an SSE body (priming events carry no data).
fn messages(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .filter(|data| !data.is_empty())
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

#[tokio::test]
async fn a_plain_call_runs_on_its_own_sessions_server() {
    let (started, _) = mpsc::unbounded_channel();
    let (stopped, _) = mpsc::unbounded_channel();
    let hub = hub(started, stopped);
    let server = start(&hub, None).await;
    tokio::time::timeout(LIMIT, async {
        let chatty = Session::open(&server, json!({})).await;
        let quiet = Session::open(&server, json!({})).await;
        chatty.set_level("info").await;
        quiet.set_level("error").await;

        let (status, chatty_reply) = chatty.call(5, "note").await;
        assert_eq!(status, 200);
        // The log line at `info`, then the result.
        assert_eq!(chatty_reply.len(), 2, "{chatty_reply:?}");
        assert_eq!(chatty_reply[0]["method"], "notifications/message");
        assert_eq!(chatty_reply[0]["params"]["level"], "info");
        assert_eq!(chatty_reply[0]["params"]["data"], "noted");
        assert_eq!(chatty_reply[1]["id"], 5);
        assert_eq!(chatty_reply[1]["result"]["content"][0]["text"], "ok");

        let (status, quiet_reply) = quiet.call(6, "note").await;
        assert_eq!(status, 200);
        // Below the session's `error` threshold: the result alone.
        assert_eq!(quiet_reply.len(), 1, "{quiet_reply:?}");
        assert_eq!(quiet_reply[0]["id"], 6);
        assert_eq!(quiet_reply[0]["result"]["isError"], false);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn cancelled_reaches_a_running_call() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let (stopped_tx, mut stopped) = mpsc::unbounded_channel();
    let hub = hub(started_tx, stopped_tx);
    let server = start(&hub, None).await;
    tokio::time::timeout(LIMIT, async {
        let session = Arc::new(Session::open(&server, json!({})).await);
        let caller = Arc::clone(&session);
        let call = tokio::spawn(async move { caller.call(11, "wait").await });
        started.recv().await.unwrap();
        let (status, _) = session
            .post(json!({
                "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": { "requestId": 11, "reason": "the test cancels" }
            }))
            .await;
        assert_eq!(status, 202);
        let was_cancelled = stopped.recv().await.expect("the handler stopped");
        assert!(
            was_cancelled,
            "the handler stopped because it was cancelled"
        );
        call.abort();
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn calls_keep_a_session_alive_and_delete_ends_it() {
    let (started, _) = mpsc::unbounded_channel();
    let (stopped, _) = mpsc::unbounded_channel();
    let hub = hub(started, stopped);
    let expiry = Duration::from_millis(400);
    let server = start(&hub, Some(expiry)).await;
    tokio::time::timeout(LIMIT, async {
        let session = Session::open(&server, json!({})).await;
        // Calls only, for three expiry periods: the session stays open.
        for id in 0..12 {
            let (status, reply) = session.call(id, "note").await;
            assert_eq!(status, 200, "call {id} after {:?}", expiry / 4 * id as u32);
            assert_eq!(reply.last().unwrap()["result"]["content"][0]["text"], "ok");
            tokio::time::sleep(expiry / 4).await;
        }
        let ended = session
            .http
            .delete(&session.url)
            .header("Mcp-Session-Id", &session.id)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .await
            .unwrap();
        assert!(ended.status().is_success());
        let (status, _) = session.call(20, "note").await;
        assert_eq!(status, 404);

        // A session left alone expires, then is unknown.
        let idle = Session::open(&server, json!({})).await;
        tokio::time::sleep(expiry * 3).await;
        let (status, _) = idle.call(1, "note").await;
        assert_eq!(status, 404);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_can_be_asked_keeps_rmcps_path() {
    let (started, _) = mpsc::unbounded_channel();
    let (stopped, _) = mpsc::unbounded_channel();
    let hub = hub(started, stopped);
    let server = start(&hub, None).await;
    tokio::time::timeout(LIMIT, async {
        for capabilities in [
            json!({ "elicitation": {} }),
            json!({ "sampling": {} }),
            json!({ "roots": {} }),
        ] {
            let session = Session::open(&server, capabilities.clone()).await;
            let (status, body) = session
                .post(json!({
                    "jsonrpc": "2.0", "id": 3, "method": "tools/call",
                    "params": { "name": "note", "arguments": {} }
                }))
                .await;
            assert_eq!(status, 200);
            // rmcp's session stream primes the client with an event id first,
            // which the direct path does not write.
            assert!(body.starts_with("data: \nid: "), "{capabilities}: {body}");
            let reply = messages(&body);
            assert_eq!(reply.last().unwrap()["result"]["content"][0]["text"], "ok");
        }
        let plain = Session::open(&server, json!({})).await;
        let (_, body) = plain
            .post(json!({
                "jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": { "name": "note", "arguments": {} }
            }))
            .await;
        assert!(body.starts_with("data: {"), "{body}");
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}
