//! stdio transport: one MCP connection over the process's stdin and stdout
//! (newline-delimited JSON-RPC; see `line` for how it is served).

use super::error::ServeError;
use super::handler::{McpServer, ServerOptions};
use crate::hub::Hub;

/// Serves `hub` to one client over stdin/stdout until the client disconnects.
pub async fn serve_stdio(hub: Hub, options: ServerOptions) -> Result<(), ServeError> {
    serve_io(hub, options, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `hub` to one client over any byte stream pair (newline-delimited
/// JSON-RPC, as on stdio) until it closes.
pub async fn serve_io<R, W>(
    hub: Hub,
    options: ServerOptions,
    reader: R,
    writer: W,
) -> Result<(), ServeError>
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    super::line::serve_lines(McpServer::new(hub, options), reader, writer).await
}
