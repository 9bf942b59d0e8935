//! Integration tests: one binary, one module per area.

mod builtins;
mod chat;
mod convert;
mod dialect_vectors;
mod registry;
mod route;
mod support;
