//! Integration tests: one binary, one module per area.

mod gateway;
mod registry;
mod support;
