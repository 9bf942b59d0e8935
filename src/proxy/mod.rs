//! `toolrouter proxy`: the router in front of a model server, for apps that
//! speak the OpenAI SDKs. A client's Chat Completions request goes upstream
//! as it came; the upstream's answer comes back through a [`RouteSession`],
//! so every call, whether the provider sent it structured or the model wrote
//! it into its text in any dialect, reaches the client as a structured
//! `tool_calls` entry, its arguments streamed as the detector reads them.
//!
//! The Anthropic Messages door (`anthropic/`, `POST /v1/messages`) translates
//! an Anthropic SDK's request into Chat Completions before the same upstream
//! and writes the routed answer back as Anthropic events or one `message`.
//! The OpenAI Responses door (`responses/`, `POST /v1/responses`) does the
//! same for a Responses request, writing Responses events or one `response`.
//!
//! Whatever the door, the upstream may speak another wire than Chat
//! Completions: `to_anthropic.rs`, `to_gemini.rs`, `to_ollama.rs` and
//! `to_bedrock.rs` translate the request (`chat_body.rs` reads it for them),
//! `models.rs` translates the model lists, and the router reads the answer
//! with the profile's adapter.
//!
//! [`serve_proxy`] binds and serves ([`ProxyOptions`], [`ProxyServer`]);
//! `request.rs` reads the client's request, `upstream.rs` reaches the model
//! server, `turn.rs` routes its answer (`record.rs` keeps each request's tracing
//! span and closing log line), `chunks.rs` writes it as a stream of
//! chunks and `completion.rs` as one answer; `error.rs` holds the OpenAI error
//! shape every failure is answered in.
//!
//! [`RouteSession`]: crate::RouteSession

mod anthropic;
mod chat_body;
mod chat_json;
mod chunks;
mod completion;
mod constrain;
mod conversation;
mod error;
mod faults;
mod handlers;
mod meta;
mod models;
mod options;
mod raw_json;
mod record;
mod request;
mod responses;
mod server;
mod shown;
mod text_tools;
mod to_anthropic;
mod to_bedrock;
mod to_gemini;
mod to_ollama;
mod to_responses;
mod turn;
mod upstream;

#[cfg(test)]
mod tests;

/// The doors' request readers, for the fuzz targets only.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;

pub use constrain::Constrain;
pub use error::ProxyError;
pub use options::{
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_STEPS, DEFAULT_MAX_TURN_BYTES,
    DEFAULT_READ_TIMEOUT, ProxyOptions, UpstreamKey,
};
pub use server::{PROXY_BASE_PATH, ProxyServer, serve_proxy};
