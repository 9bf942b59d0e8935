//! The echo tool both benches call: toolrouter's hub with it registered, and
//! the smallest plain rmcp server answering it (the baseline); and both served
//! over Streamable HTTP on 127.0.0.1.

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use toolrouter::{HttpOptions, Hub, JsonObject, ServerOptions};

pub fn schema() -> Arc<JsonObject> {
    let serde_json::Value::Object(map) = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    }) else {
        unreachable!()
    };
    Arc::new(map)
}

pub fn echo_result(args: &JsonObject) -> CallToolResult {
    let text = args.get("text").and_then(|v| v.as_str()).unwrap_or("");
    CallToolResult::success(vec![ContentBlock::text(text.to_owned())])
}

pub fn hub() -> Hub {
    let hub = Hub::new();
    hub.registry()
        .register_fn(
            Tool::new("echo", "echoes its text", schema()),
            |args, _| async move { Ok(echo_result(&args)) },
        )
        .unwrap();
    hub
}

/// The baseline: the smallest rmcp server that answers `echo`.
#[derive(Clone)]
pub struct RmcpEcho;

impl ServerHandler for RmcpEcho {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "echo",
            "echoes its text",
            schema(),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(echo_result(&request.arguments.unwrap_or_default()).into())
    }
}

/// toolrouter's server for `hub` over Streamable HTTP on a free port, running
/// for the rest of the process; its address.
pub async fn toolrouter_http(hub: Hub, json_response: bool, sessions: bool) -> SocketAddr {
    let options = HttpOptions::new("127.0.0.1:0".parse().unwrap())
        .with_sessions(sessions)
        .with_json_response(json_response);
    let server = toolrouter::serve_http(hub, ServerOptions::default(), options)
        .await
        .unwrap();
    let addr = server.local_addr();
    std::mem::forget(server);
    addr
}

/// The baseline over Streamable HTTP: rmcp's own service for [`RmcpEcho`] on
/// plain `axum::serve`, as rmcp's examples run it, on a free port; its address.
pub async fn rmcp_http(json_response: bool, sessions: bool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(sessions)
        .with_json_response(json_response);
    let service = StreamableHttpService::new(
        || Ok(RmcpEcho),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().route_service("/mcp", service);
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}
