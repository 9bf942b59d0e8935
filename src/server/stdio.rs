//! stdio transport: one MCP connection over the process's stdin and stdout.

use rmcp::ServiceExt as _;

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
    let running = McpServer::new(hub, options)
        .serve((reader, writer))
        .await
        .map_err(|e| ServeError::Handshake(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Io(std::io::Error::other(e.to_string())))?;
    Ok(())
}
