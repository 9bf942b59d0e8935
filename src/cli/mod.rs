//! Subcommands of the `toolrouter` binary, one module each, and the pieces
//! they share: tool set-up, detector options, names, sizes, help.

pub(crate) mod chat;
pub(crate) mod detect_args;
pub(crate) mod help;
pub(crate) mod log;
pub(crate) mod names;
pub(crate) mod parse;
pub(crate) mod proxy;
pub(crate) mod route;
pub(crate) mod serve;
pub(crate) mod setup;
pub(crate) mod size;
pub(crate) mod tools;
mod transcript;
pub(crate) mod upstreams;
