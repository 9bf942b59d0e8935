//! Integration tests: one binary, one module per area.

mod server_cli;
mod server_http;
mod server_python;
mod support;
