//! Subcommands of the `toolrouter` binary, one module each.

pub(crate) mod serve;
pub(crate) mod tools;
