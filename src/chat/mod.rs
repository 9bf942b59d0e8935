//! Live chat against a provider endpoint: the conversation in the provider's
//! dialect, the request body for each turn, and the endpoint (URL and headers).
//!
//! [`Conversation`] holds a conversation's messages in one wire's format,
//! declares the tools (or teaches them in the system prompt, [`ToolMode::InText`]),
//! builds each turn's streaming request body ([`Conversation::request_body`]) and
//! appends a routed turn ([`Conversation::record_turn`]). [`endpoint`] gives the
//! URL and headers of a wire's streaming endpoint. Everything here is pure: the
//! caller sends the request with its HTTP client and routes the response bytes
//! through [`Router::route`](crate::Router::route).

mod conversation;
pub(crate) mod endpoint;
mod error;

#[cfg(test)]
mod tests;

pub use conversation::{Conversation, ToolMode};
pub use endpoint::{Endpoint, endpoint};
pub use error::ChatError;
