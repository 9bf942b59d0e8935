//! Integration tests: one binary, one module per area.

mod builtins;
mod builtins_confinement;
mod chat;
mod convert;
mod detect;
mod dialect_vectors;
mod differential;
mod exec;
mod gateway;
mod gateway_e2e;
mod gateway_liveness;
mod gateway_server;
mod peer_vectors;
mod proxy;
mod proxy_cli;
mod proxy_faults;
mod proxy_python;
mod registry;
mod route;
mod server_cli;
mod server_http;
mod server_http_direct;
mod server_http_limits;
mod server_python;
mod server_stdio;
mod support;
