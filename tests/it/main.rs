//! Integration tests: one binary, one module per area.

mod builtins;
mod convert;
mod dialect_vectors;
mod exec;
mod registry;
mod server_cli;
mod server_http;
mod server_python;
mod support;
