//! Subcommands of the `toolrouter` binary, one module each.

pub(crate) mod parse;
pub(crate) mod tools;
