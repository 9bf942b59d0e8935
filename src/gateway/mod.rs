//! Tools from other MCP servers: the gateway connects to upstream servers (child
//! processes over stdio, or Streamable HTTP URLs), registers their tools under
//! namespaced names, forwards calls, and keeps them alive.

mod admit;
mod client;
mod config;
mod error;
mod forward;
mod handle;
mod listing;
mod naming;
mod status;
mod supervisor;
mod upstream;

#[cfg(test)]
mod tests;

pub use config::{
    GatewayConfig, GatewaySettings, HttpTransport, RestartPolicy, StdioTransport, UpstreamConfig,
    UpstreamTransport,
};
pub use error::{ConfigError, UpstreamError};
pub use handle::Gateway;
pub use listing::{ToolListing, render_tool_listing, render_upstream_status, tool_listing};
pub use naming::{NamingConfig, PrefixMode, public_tool_name};
pub use status::{UpstreamIssue, UpstreamState, UpstreamStatus, UpstreamTool};
