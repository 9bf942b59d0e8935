//! The Streamable HTTP server's connections: the accept loop with its
//! connection cap, and each connection's header, body and idle deadlines.

mod accept;
mod clock;
mod rate_limit;

#[cfg(fuzzing)]
pub(crate) use accept::serve_connection;
pub(crate) use accept::{ConnLimits, serve_connections};
pub(crate) use clock::Timeouts;
pub(crate) use rate_limit::RateLimitedLog;
