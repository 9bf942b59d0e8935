//! Integration tests: one binary, one module per area.

mod builtins;
mod registry;
mod support;
