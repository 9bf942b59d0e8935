//! Provider wire adapters: raw provider bytes in, provider-neutral deltas out.
//!
//! A provider answers a streaming request with bytes: Server-Sent Events (OpenAI,
//! Anthropic, Gemini, Mistral and every OpenAI-compatible server), NDJSON (Ollama) or
//! AWS binary event-stream frames (Bedrock). This crate turns those bytes, cut
//! anywhere by the network, into one vocabulary, and knows each provider's quirks.
//!
//! The main types:
//!
//! - [`Wire`] names a wire protocol; [`Wire::adapter`] gives its [`WireAdapter`],
//!   which is fed bytes ([`WireAdapter::feed`]) and yields [`ProviderDelta`]s: text,
//!   reasoning, tool-call start / argument fragments / end keyed by [`CallKey`],
//!   server-run calls, a [`Finish`](ProviderDelta::Finish) with a normalised
//!   [`StopReason`], [`Usage`], and [`Error`](ProviderDelta::Error)s (provider errors,
//!   bad frames, cut streams) after which the adapter keeps going.
//! - [`TurnCollector`] folds deltas into a [`TurnSummary`] with the keys of the
//!   fixtures' expectation schema: completed [`calls`](TurnSummary::calls), cut-off
//!   [`partial_calls`](TurnSummary::partial_calls), [`server_calls`](TurnSummary::server_calls),
//!   and the stop after the normalisation rules. It is built from [`TurnStatus`]
//!   (what only the provider knows: stop, first error, usage) and
//!   [`ArgumentsRule`] (when argument text makes a runnable call), which the root
//!   crate's router uses too.
//! - [`ProviderProfile`] is what we know about one provider (wire, text formats its
//!   models write calls in, tool limits, API-key variable, base URL, quirks), loaded
//!   from one TOML file per provider; [`find_profile`] looks one up by name, alias or
//!   fixture prefix.
//!
//! This crate knows nothing of MCP, tool registries or the root `toolrouter` crate:
//! detecting calls written inside the visible text is the root crate's job.
//!
//! ```
//! use toolrouter_providers::{ProviderDelta, TurnCollector, Wire};
//!
//! let mut adapter = Wire::Anthropic.adapter();
//! let mut deltas = Vec::new();
//! // One tool call, cut in three arbitrary places.
//! let stream = concat!(
//!     "event: content_block_start\n",
//!     "data: {\"type\":\"content_block_start\",\"index\":0,",
//!     "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_time\",\"input\":{}}}\n\n",
//!     "data: {\"type\":\"content_block_delta\",\"index\":0,",
//!     "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"tz\\\": \\\"UTC\\\"}\"}}\n\n",
//!     "data: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
//!     "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n",
//! );
//! let (a, rest) = stream.as_bytes().split_at(40);
//! let (b, c) = rest.split_at(150);
//! for chunk in [a, b, c] {
//!     adapter.feed(chunk, &mut deltas)?;
//! }
//! adapter.finish(&mut deltas)?;
//!
//! let mut collector = TurnCollector::new();
//! collector.extend(&deltas);
//! let summary = collector.finish();
//! assert_eq!(summary.calls[0].name, "get_time");
//! assert_eq!(summary.calls[0].arguments["tz"], "UTC");
//! assert_eq!(summary.stop.as_str(), "tool_use");
//! # Ok::<(), toolrouter_providers::AdapterError>(())
//! ```

mod adapters;
mod arguments;
mod collector;
mod delta;
mod error;
mod framing;
mod profiles;
mod status;

pub use adapters::{AdapterConfig, Wire, WireAdapter};
pub use arguments::{ArgumentsError, ArgumentsRule, ArgumentsText, DEFAULT_MAX_ARGUMENT_BYTES};
pub use collector::{
    CompletedCall, EndedCall, PartialCall, ReasoningBlock, ServerCall, TurnCollector, TurnError,
    TurnSummary,
};
pub use delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage};
pub use error::{AdapterError, UnknownName};
pub use profiles::{ProfileMatch, ProviderProfile, Quirk, ToolLimits, find_profile, profiles};
pub use status::TurnStatus;
