//! Integration tests: one binary, one module per area.

mod server_http;
mod support;
