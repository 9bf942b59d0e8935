#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod builtins;
pub mod chat;
pub mod convert;
pub mod core;
pub mod detect;
pub mod exec;
pub mod gateway;
mod hub;
pub mod registry;
pub mod router;
pub mod server;

pub use crate::core::{
    DetectEvent, Diagnostic, DiagnosticKind, JsonObject, ParamType, ToolCall, ToolCatalog,
    ToolShape, WireFormat, new_call_id,
};
pub use builtins::{BUILTIN_TOOL_NAMES, BuiltinsConfig, BuiltinsError, register_builtins};
/// The string type of event text and argument fragments (`compact_str`).
pub use compact_str::CompactString;
pub use convert::{ConversionNote, Declarations, Dialect, NoteKind};
pub use detect::{DetectConfig, StreamDetector, detect_all};
pub use exec::{ExecError, Executor, ExecutorConfig};
pub use gateway::{Gateway, GatewayConfig, UpstreamConfig, UpstreamState, UpstreamStatus};
pub use hub::{Hub, HubBuilder};
pub use registry::{
    ClientPeer, Elicitation, PromptRegistry, RegisteredTool, RegistryChange, RegistryError,
    ResourceRegistry, ToolContext, ToolError, ToolHandler, ToolPage, ToolRegistry, ToolSource,
    TypedToolBuilder, validate_tool_name,
};
pub use rmcp;
pub use router::{RouteEvent, RouteSession, Router, TurnOutcome};
pub use server::{
    HttpOptions, HttpServer, McpServer, ServeError, ServerOptions, serve_http, serve_io,
    serve_stdio,
};
pub use toolrouter_providers as providers;
