//! Built-in tools for the embedded defaults: `calculate` and the file tools
//! confined to one workspace root. Off unless the app or a command registers
//! them with [`register_builtins`].

mod expr;
mod files;
mod register;
mod search;
mod walk;
mod workspace;

#[cfg(test)]
mod tests;

pub use register::{BUILTIN_TOOL_NAMES, BuiltinsConfig, BuiltinsError, register_builtins};
