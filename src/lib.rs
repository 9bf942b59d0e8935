//! toolrouter: the middleware between a model's stream and its tools.
//!
//! - [`Hub`] holds the registered tools ([`ToolRegistry`]); `Hub::global()` is the
//!   process-wide instance, `Hub::new()` an isolated one.
//! - [`detect`] finds tool calls in streamed model text, in every supported dialect.
//! - [`convert`] turns tool definitions, calls and results into each provider's dialect.
//! - [`core`] is the plain data every layer shares: [`ToolCall`], [`WireFormat`],
//!   [`DetectEvent`], [`ToolCatalog`].
#![forbid(unsafe_code)]

pub mod builtins;
mod context;
pub mod convert;
pub mod core;
pub mod detect;
pub mod exec;
mod hub;
pub mod registry;
pub mod server;

pub use crate::core::{
    DetectEvent, Diagnostic, DiagnosticKind, JsonObject, ParamType, ToolCall, ToolCatalog,
    ToolShape, WireFormat, new_call_id,
};
pub use builtins::{BUILTIN_TOOL_NAMES, BuiltinsConfig, BuiltinsError, register_builtins};
pub use context::{ClientPeer, Elicitation, ToolContext};
pub use convert::{ConversionNote, Declarations, Dialect, NoteKind};
pub use exec::{ExecError, Executor, ExecutorConfig};
pub use hub::{Hub, HubBuilder};
pub use registry::{
    RegisteredTool, RegistryChange, RegistryError, ToolError, ToolHandler, ToolPage, ToolRegistry,
    ToolSource, TypedToolBuilder, validate_tool_name,
};
pub use rmcp;
pub use server::{
    HttpOptions, HttpServer, McpServer, PromptRegistry, ResourceRegistry, ServeError,
    ServerOptions, serve_http, serve_stdio,
};
