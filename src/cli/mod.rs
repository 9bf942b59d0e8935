//! Subcommands of the `toolrouter` binary, one module each.

pub(crate) mod route;
pub(crate) mod serve;
pub(crate) mod setup;
pub(crate) mod tools;
pub(crate) mod upstreams;
