//! The embedded MCP server: an rmcp `ServerHandler` over a [`Hub`](crate::Hub)
//! ([`McpServer`]) serving the tool, resource and prompt registries, and the stdio
//! and Streamable HTTP transports.

mod bad_input;
mod error;
mod fast_call;
mod handler;
mod http;
mod http_direct;
mod http_sessions;
mod line;
mod list_gate;
mod options;
mod peer;
mod state;
mod state_keys;
mod stdio;

pub use error::ServeError;
pub use handler::McpServer;
pub use http::{
    DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_EXPIRY, HEALTH_PATH, HttpOptions, HttpServer,
    MCP_PATH, serve_http,
};
pub use list_gate::ListGate;
pub use options::ServerOptions;
pub use state_keys::{
    MAX_STATE_KEY_FILE_BYTES, MIN_STATE_KEY_BYTES, STATE_KEY_ENV, STATE_KEY_FILE_ENV,
    StateKeyError, StateKeys,
};
pub use stdio::{serve_io, serve_stdio};

#[cfg(fuzzing)]
#[doc(hidden)]
pub use http::fuzzing as http_fuzzing;
