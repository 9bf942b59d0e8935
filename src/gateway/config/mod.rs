//! Gateway configuration: the `mcpServers` JSON that Claude Desktop, Cursor and VS Code
//! write, and `toolrouter.toml` (the same servers plus toolrouter's own settings).

mod file;
mod gateway;
mod read;
mod upstream;

pub use gateway::{GatewayConfig, GatewaySettings, RestartPolicy};
pub use upstream::{HttpTransport, StdioTransport, UpstreamConfig, UpstreamTransport};
