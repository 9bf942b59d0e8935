//! Integration tests: one binary, one module per area.

mod builtins;
mod convert;
mod dialect_vectors;
mod registry;
mod support;
