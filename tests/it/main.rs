//! Integration tests: one binary, one module per area.

mod convert;
mod support;
