#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

// Every module is private: the crate root below is the public API, and each
// public item has exactly one path. `providers` is the wire-adapter crate and
// `rmcp` the MCP SDK whose model types are ours too.
mod builtins;
mod chat;
mod convert;
mod core;
mod detect;
mod exec;
mod gateway;
mod grammar;
mod http_conn;
mod hub;
mod proxy;
mod registry;
mod router;
mod server;

/// The string type of event text and argument fragments (`compact_str`).
pub use compact_str::CompactString;
pub use rmcp;
pub use toolrouter_providers as providers;

// The hub: the one entry point.
pub use hub::{Hub, HubBuilder};

// Plain data every layer shares.
pub use crate::core::{
    DetectEvent, Diagnostic, DiagnosticKind, JsonObject, ParamType, ToolCall, ToolCatalog,
    ToolShape, UnknownNameError, WireFormat, new_call_id,
};

// Tools: the registry, the handler contract, resources and prompts.
pub use builtins::{BUILTIN_TOOL_NAMES, BuiltinsConfig, BuiltinsError, register_builtins};
pub use registry::{
    ClientPeer, Elicitation, FnHandler, MAX_TOOL_NAME_LEN, PromptArguments, PromptError,
    PromptRegistry, PromptRequest, RegisteredTool, RegistryChange, RegistryError, ResourceChange,
    ResourceError, ResourceRegistry, TOOL_NAME_RULE, ToolContext, ToolError, ToolHandler, ToolPage,
    ToolRegistry, ToolSource, TypedToolBuilder, UriVariables, tool_from_list_entry,
    validate_tool_name,
};

// Execution: the one path every call takes.
pub use exec::{CallOutcome, ExecError, Executor, ExecutorConfig};

// Detection of calls written in model text.
pub use detect::{
    CORE_TEXT_FORMATS, DEFAULT_TEXT_FORMATS, DetectConfig, EventBatch, EventIter, EventOutput,
    EventRef, StreamDetector, detect_all, parse_arguments, text_formats,
};

// Routing a provider's stream: detect, execute, collect.
pub use router::{
    CallResult, Frame, RawBytes, RouteEvent, RouteInput, RouteSession, RouteStream, Router,
    TurnOutcome,
};

// Converters to and from each provider's dialect.
pub use convert::{ConversionNote, Declarations, Dialect, NoteKind, restore_optional_nulls};

// Grammars that constrain a model to calls in its own dialect.
pub use grammar::{
    GrammarCache, GrammarError, GrammarLimits, GrammarOptions, GrammarServer, GrammarTool, Resumed,
    ToolChoice, ToolGrammar, UnknownGrammarServer, build_grammar,
};

// Conversations with a provider (request bodies and endpoints; no I/O).
pub use chat::{ChatError, Conversation, Endpoint, ToolMode, endpoint};

// The MCP server over stdio and Streamable HTTP.
pub use server::{
    DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_EXPIRY, HEALTH_PATH, HttpOptions, HttpServer,
    ListGate, MAX_STATE_KEY_FILE_BYTES, MCP_PATH, MIN_STATE_KEY_BYTES, McpServer, STATE_KEY_ENV,
    STATE_KEY_FILE_ENV, ServeError, ServerOptions, StateKeyError, StateKeys, serve_http, serve_io,
    serve_stdio,
};
// The HTTP server's request path without a socket, for the fuzz targets only.
#[cfg(fuzzing)]
#[doc(hidden)]
pub use server::http_fuzzing;

// The proxy's request readers without a server, for the fuzz targets only.
#[cfg(fuzzing)]
#[doc(hidden)]
pub use proxy::fuzzing as proxy_fuzzing;

// The limits both HTTP listeners (the MCP server and the proxy) share.
pub use http_conn::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
};

// The proxy: the router in front of a model server, for OpenAI SDK clients.
pub use proxy::{
    Constrain, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TURN_BYTES, DEFAULT_READ_TIMEOUT, PROXY_BASE_PATH, ProxyError, ProxyOptions,
    ProxyServer, UpstreamKey, serve_proxy,
};

// The gateway to tools of other MCP servers.
pub use gateway::{
    ConfigError, Gateway, GatewayConfig, GatewaySettings, HttpTransport, NamingConfig, PrefixMode,
    RestartPolicy, StdioTransport, ToolListing, UpstreamConfig, UpstreamError, UpstreamIssue,
    UpstreamState, UpstreamStatus, UpstreamTool, UpstreamTransport, public_tool_name,
    render_tool_listing, render_upstream_status, tool_listing,
};
