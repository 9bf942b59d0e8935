//! The embedded MCP server: an rmcp `ServerHandler` over a [`Hub`](crate::Hub)
//! ([`McpServer`]) serving the tool, resource and prompt registries, and the stdio
//! and Streamable HTTP transports.

mod error;
mod fast_call;
mod handler;
mod http;
mod http_direct;
mod line;
mod peer;
mod state;
mod stdio;

pub use crate::registry::{
    PromptArguments, PromptError, PromptRegistry, PromptRequest, ResourceChange, ResourceError,
    ResourceRegistry, UriVariables,
};
pub use error::ServeError;
pub use handler::{McpServer, ServerOptions};
pub use http::{HttpOptions, HttpServer, MCP_PATH, serve_http};
pub use stdio::{serve_io, serve_stdio};

/// A `tools/call` request parsed with the request type narrowed to
/// `CallToolRequest` (both direct paths parse that way, skipping the request
/// types `ClientRequest` tries first), as the `ClientRequest` rmcp's handler
/// takes.
fn client_request(
    request: rmcp::model::JsonRpcRequest<rmcp::model::CallToolRequest>,
) -> rmcp::model::JsonRpcRequest<rmcp::model::ClientRequest> {
    rmcp::model::JsonRpcRequest {
        jsonrpc: request.jsonrpc,
        id: request.id,
        request: rmcp::model::ClientRequest::CallToolRequest(request.request),
    }
}
