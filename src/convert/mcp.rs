//! A neutral [`ToolCall`] as an MCP `tools/call` request.

use rmcp::model::{CallToolRequestParams, RequestId};
use serde_json::{Value, json};

use crate::core::ToolCall;

/// The `tools/call` params: the call's name and arguments (the id and source
/// format are not part of an MCP call; the JSON-RPC id is the transport's).
pub fn call_params(call: &ToolCall) -> CallToolRequestParams {
    CallToolRequestParams::new(call.name.clone()).with_arguments(call.arguments.clone())
}

/// The whole JSON-RPC request:
/// `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":..,"arguments":{..}}}`.
pub fn call_request(call: &ToolCall, id: RequestId) -> Value {
    let params = serde_json::to_value(call_params(call))
        .unwrap_or_else(|_| json!({"name": call.name, "arguments": call.arguments}));
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}
