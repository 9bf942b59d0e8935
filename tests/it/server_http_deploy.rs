//! Several server processes behind one load balancer. A multi-round
//! call's `requestState` signed by one server is accepted by another that
//! shares its keys (and refused by one that does not); `GET /healthz` answers
//! without a token; a proxy's `Host` is accepted once it is allowed.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, InputRequiredResult, Tool};
use serde_json::{Value, json};
use toolrouter::{HttpOptions, HttpServer, Hub, ServerOptions, StateKeys, ToolContext, serve_http};

/// Every test gives up after this long instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

const KEY: &str = "7f1c2a9be3d04c5f8a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b";

/// `confirm`: asks for a confirmation with a state, then answers with that state.
fn hub() -> Hub {
    let hub = Hub::new();
    let schema = serde_json::from_value(json!({ "type": "object" })).unwrap();
    hub.registry()
        .register_fn(
            Tool::new("confirm", "asks, then answers", Arc::new(schema)),
            |_, ctx: ToolContext| async move {
                if let Some(state) = ctx.request_state() {
                    let text = format!("state {state}");
                    return Ok(CallToolResult::success(vec![ContentBlock::text(text)]));
                }
                let ask: InputRequiredResult = serde_json::from_value(json!({
                    "resultType": "input_required",
                    "inputRequests": { "ok": { "method": "elicitation/create", "params": {
                        "mode": "form", "message": "sure?",
                        "requestedSchema": { "type": "object", "properties": {} }
                    } } },
                    "requestState": "round-1"
                }))?;
                ctx.require_input(ask)
            },
        )
        .unwrap();
    hub
}

async fn start(keys: Option<&StateKeys>, http: HttpOptions) -> HttpServer {
    let mut options = ServerOptions::default();
    if let Some(keys) = keys {
        options = options.with_state_keys(keys.clone());
    }
    serve_http(hub(), options, http.with_sessions(false))
        .await
        .unwrap()
}

fn loopback() -> HttpOptions {
    HttpOptions::new("127.0.0.1:0".parse().unwrap())
}

/// A stateless (2026-07-28) `tools/call` of `confirm`; the JSON-RPC reply.
async fn call(server: &HttpServer, round_two: Option<&Value>) -> Value {
    let mut params = json!({
        "name": "confirm", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} }
        }
    });
    if let Some(state) = round_two {
        params["requestState"] = state.clone();
        params["inputResponses"] = json!({ "ok": { "action": "accept", "content": {} } });
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let reply = reqwest::Client::new()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "confirm")
        .json(&body)
        .send()
        .await
        .unwrap();
    let text = reply.text().await.unwrap();
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .unwrap_or(&text);
    serde_json::from_str(json.trim()).unwrap()
}

#[tokio::test]
async fn a_request_state_crosses_processes_that_share_keys() {
    let keys = StateKeys::parse(KEY, "test").unwrap();
    let first = start(Some(&keys), loopback()).await;
    let second = start(Some(&keys), loopback()).await;
    let stranger = start(None, loopback()).await;
    tokio::time::timeout(LIMIT, async {
        let asked = call(&first, None).await;
        assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
        let state = &asked["result"]["requestState"];
        let done = call(&second, Some(state)).await;
        assert_eq!(
            done["result"]["content"][0]["text"], "state round-1",
            "{done}"
        );
        let refused = call(&stranger, Some(state)).await;
        let message = refused["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("integrity check failed"), "{refused}");
    })
    .await
    .unwrap();
    for server in [first, second, stranger] {
        server.shutdown().await.unwrap();
    }
}

async fn status(url: &str, host: Option<&str>) -> (reqwest::StatusCode, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
    if let Some(host) = host {
        request = request.header("Host", host);
    }
    let reply = request.send().await.unwrap();
    (reply.status(), reply.text().await.unwrap())
}

#[tokio::test]
async fn healthz_needs_no_token_and_an_allowed_proxy_host_is_served() {
    let plain = start(None, loopback().with_bearer_token("s3cret")).await;
    let proxied = start(
        None,
        loopback()
            .with_bearer_token("s3cret")
            .with_extra_hosts(["mcp.example.com".to_owned()]),
    )
    .await;
    tokio::time::timeout(LIMIT, async {
        let health = format!("http://{}/healthz", plain.local_addr());
        let reply = reqwest::get(&health).await.unwrap();
        assert_eq!(reply.status(), reqwest::StatusCode::OK);
        assert_eq!(reply.text().await.unwrap(), "ok\n");
        // The MCP endpoint still wants the token.
        let (code, _) = status(&plain.url(), None).await;
        assert_eq!(code, reqwest::StatusCode::UNAUTHORIZED);

        let with_token = |url: String, host: &'static str| async move {
            let reply = reqwest::Client::new()
                .post(url)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer s3cret")
                .header("Host", host)
                .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }))
                .send()
                .await
                .unwrap();
            reply.status()
        };
        let foreign = with_token(plain.url(), "mcp.example.com").await;
        assert!(foreign.is_client_error(), "{foreign}");
        let allowed = with_token(proxied.url(), "mcp.example.com").await;
        assert!(allowed.is_success(), "{allowed}");
        let other = with_token(proxied.url(), "evil.example.com").await;
        assert!(other.is_client_error(), "{other}");
    })
    .await
    .unwrap();
    plain.shutdown().await.unwrap();
    proxied.shutdown().await.unwrap();
}

/// POSTs `body` (with `session`, if any); the status and the session id header.
async fn post_session(
    url: &str,
    session: Option<&str>,
    body: Value,
) -> (reqwest::StatusCode, Option<String>) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .json(&body);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let reply = request.send().await.unwrap();
    let id = reply
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (reply.status(), id)
}

#[tokio::test]
async fn session_ids_carry_the_process_prefix_and_it_is_taken_off_again() {
    let bad = serve_http(
        hub(),
        ServerOptions::default(),
        loopback().with_session_id_prefix("a.b"),
    )
    .await
    .unwrap_err();
    assert!(
        bad.to_string().contains("session id prefix \"a.b\""),
        "{bad}"
    );

    let server = serve_http(
        hub(),
        ServerOptions::default(),
        loopback().with_session_id_prefix("node-1"),
    )
    .await
    .unwrap();
    let url = server.url();
    tokio::time::timeout(LIMIT, async {
        let init = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": { "name": "raw", "version": "0" } }
        });
        let (code, id) = post_session(&url, None, init).await;
        assert!(code.is_success(), "{code}");
        let id = id.unwrap();
        let inner = id.strip_prefix("node-1.").unwrap_or_else(|| panic!("{id}"));
        assert!(!inner.is_empty() && !inner.contains("node-1"), "{id}");
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let (code, _) = post_session(&url, Some(&id), initialized).await;
        assert!(code.is_success(), "{code}");
        let ping = json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" });
        let (code, echoed) = post_session(&url, Some(&id), ping.clone()).await;
        assert!(code.is_success(), "{code}");
        assert!(echoed.is_none_or(|e| e == id), "the prefixed id, if any");
        let other = format!("node-2.{inner}");
        let (code, _) = post_session(&url, Some(&other), ping).await;
        assert_eq!(code, reqwest::StatusCode::NOT_FOUND);
    })
    .await
    .unwrap();
    server.shutdown().await.unwrap();
}
