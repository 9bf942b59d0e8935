//! The HTTP listeners' connections (the MCP server's Streamable HTTP and the
//! proxy): the accept loop with its connection cap, the bearer token, and
//! each connection's header, body and idle deadlines.

mod accept;
mod bearer;
mod cap;
mod clock;
mod rate_limit;

#[cfg(test)]
mod tests;

#[cfg(fuzzing)]
pub(crate) use accept::serve_connection;
pub(crate) use accept::{ConnLimits, serve_connections};
pub use accept::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
};
pub(crate) use bearer::{BearerToken, is_blank};
pub(crate) use cap::{ConnCap, OverCapAnswer, service_unavailable};
pub(crate) use clock::Timeouts;
pub(crate) use rate_limit::RateLimitedLog;
