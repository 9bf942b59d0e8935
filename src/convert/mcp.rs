//! A neutral [`ToolCall`] as an MCP `tools/call` request.

use rmcp::model::{CallToolRequestParams, RequestId};
use serde_json::{Value, json};

use crate::core::ToolCall;

impl ToolCall {
    /// The MCP `tools/call` params: the call's name and arguments (the id and
    /// source format are not part of an MCP call; the JSON-RPC id is the
    /// transport's).
    pub fn to_mcp_params(&self) -> CallToolRequestParams {
        CallToolRequestParams::new(self.name.clone()).with_arguments(self.arguments.clone())
    }

    /// The whole MCP JSON-RPC request:
    /// `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":..,"arguments":{..}}}`.
    pub fn to_mcp_request(&self, id: RequestId) -> Value {
        let params = serde_json::to_value(self.to_mcp_params())
            .unwrap_or_else(|_| json!({"name": self.name, "arguments": self.arguments}));
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    }
}
