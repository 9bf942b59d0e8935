//! `ServeError`: why a transport could not start or stopped.

use std::net::SocketAddr;

/// A transport failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Binding or serving failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// A non-loopback address was given without allowing remote access.
    #[error(
        "refusing to serve on non-loopback address {0}: pass --allow-remote (and set a token) to expose tools to the network"
    )]
    RemoteBindRefused(SocketAddr),
    /// The bearer token is empty or only whitespace: it is refused, not
    /// taken for "no token".
    #[error("the bearer token is empty or blank: give a real token, or none")]
    EmptyToken,
    /// The client's handshake failed.
    #[error("mcp handshake failed: {0}")]
    Handshake(String),
}
