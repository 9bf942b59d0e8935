//! Subcommands of the `toolrouter` binary, one module each, and the pieces
//! `route` and `chat` share.

pub(crate) mod chat;
pub(crate) mod detect_args;
pub(crate) mod log;
pub(crate) mod parse;
pub(crate) mod proxy;
pub(crate) mod route;
pub(crate) mod serve;
pub(crate) mod setup;
pub(crate) mod tools;
mod transcript;
pub(crate) mod upstreams;
