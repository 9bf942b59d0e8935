//! The Streamable HTTP transport's direct path: in stateless mode a `tools/call`
//! POST is answered here, without rmcp's per-request service loop; every other
//! request goes to rmcp's `StreamableHttpService` unchanged.
//!
//! For each stateless request rmcp builds a service loop (`serve_directly`)
//! with its own peer and channels, spawns it and a task for the handler, and
//! routes the reply back through a channel. Here the request's checks run in
//! place, the server's rmcp `Service::handle_request` (rmcp's protocol checks
//! and result shaping, then `McpServer::call_tool` and the hub's executor, the
//! same path as every other call) is polled in the connection's own task, and
//! the reply is written as one body.
//!
//! Only a request that is surely a plain stateless `tools/call` takes this
//! path; for anything else, or anything doubtful, the request is rebuilt from
//! the same bytes and handed to rmcp, which then applies its own checks and
//! writes its own answers (errors included). The direct path is taken when:
//! - the method is `POST`, the `Host` header names an allowed host, and there
//!   is no `Origin` header (browser requests go to rmcp, whose origin check
//!   then applies);
//! - `Accept` lists `application/json` and `text/event-stream` as plain
//!   entries (no quotes, no parameters such as `q`: rmcp's media-range rules
//!   decide those), and `Content-Type` is `application/json`;
//! - `Content-Length` is given and within rmcp's body limit;
//! - `MCP-Protocol-Version` is absent or names a revision with the
//!   `initialize` handshake (2024-11-05 to 2025-11-25), and the body's `_meta`
//!   names no protocol version: the 2026-07-28 wire (per-request metadata,
//!   standard `Mcp-*` headers, HTTP status mapping) is rmcp's;
//! - the body is one JSON-RPC request (no batch) whose method is
//!   `tools/call`, and its `_meta` declares neither sampling nor elicitation:
//!   a stateless request cannot carry the client's answer to a server-to-client
//!   request, and rmcp's handling of that case is kept as it is.
//!
//! What the handler sees matches rmcp's stateless path: a peer whose client
//! info names the header's protocol version (2025-03-26 when absent) with no
//! declared capabilities, the request's `_meta`, and the HTTP request parts in
//! its extensions. Progress and log notifications the handler sends go to the
//! request's own response (see `NotificationSink`). The reply has rmcp's
//! shape: `application/json` when JSON responses are on and the result is the
//! first message, otherwise `text/event-stream` with one `data:` event per
//! message (no event ids: rmcp's stateless streams carry none without an event
//! store), keep-alive comments while a call runs, status 200 either way. When
//! the call finishes before anything is written (the common case) the events
//! go out as one body with a `Content-Length`; otherwise the stream stays open
//! and each notification is written as it comes.

mod admission;
mod reply;
mod service;
mod sessions;

#[cfg(test)]
mod tests;

pub(crate) use service::{DirectCalls, DirectHttp};
pub(crate) use sessions::SessionTable;
