//! The echo tool both benches call: toolrouter's hub with it registered, and
//! the smallest plain rmcp server answering it (the baseline).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use toolrouter::{Hub, JsonObject};

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
