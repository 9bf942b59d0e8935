//! Integration tests: one binary, one module per area.

mod convert;
mod registry;
mod support;
