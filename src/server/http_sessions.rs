//! The session cap of the Streamable HTTP server: an `initialize` that would
//! open a session past the cap is refused with HTTP 503, `Retry-After: 1`
//! and a JSON-RPC error for its id, before rmcp creates anything. And the
//! session id prefix that lets a load balancer find a session's process.

use std::sync::Arc;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::http_conn::RateLimitedLog;

/// The JSON-RPC error code of a refused session (implementation-defined
/// server error range).
const TOO_MANY_SESSIONS: i64 = -32000;

/// What the session-cap check needs.
#[derive(Debug, Clone)]
pub(crate) struct SessionCap {
    pub(crate) sessions: Arc<LocalSessionManager>,
    pub(crate) max: usize,
    /// rmcp's body limit: a larger body is passed on unread.
    pub(crate) max_body_bytes: usize,
    pub(crate) refusals: Arc<std::sync::Mutex<RateLimitedLog>>,
}

/// Refuses an `initialize` without a session when `cap.max` sessions are
/// open. The count is read before rmcp creates the session, so concurrent
/// handshakes can pass it by a few.
pub(crate) async fn refuse_sessions_over_cap(
    cap: SessionCap,
    req: Request,
    next: Next,
) -> Response {
    let size = http_body::Body::size_hint(req.body()).exact();
    if req.method() != http::Method::POST
        || req.headers().contains_key("mcp-session-id")
        || size.is_none_or(|n| n > cap.max_body_bytes as u64)
    {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    // A body of a known size within rmcp's limit (`json_rpc_body_errors`
    // has read most of them already).
    let Ok(bytes) = axum::body::to_bytes(body, cap.max_body_bytes).await else {
        return http::StatusCode::BAD_REQUEST.into_response();
    };
    let initialize = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .filter(|message| message["method"] == "initialize");
    if let Some(message) = initialize {
        let open = cap.sessions.sessions.read().await.len();
        if open >= cap.max {
            let report = cap
                .refusals
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .record();
            if let Some(n) = report {
                tracing::warn!(
                    refused = n,
                    max_sessions = cap.max,
                    "session cap reached: new sessions refused since the last report"
                );
            }
            let reply = serde_json::json!({
                "jsonrpc": "2.0",
                "id": message.get("id").cloned().unwrap_or(serde_json::Value::Null),
                "error": {
                    "code": TOO_MANY_SESSIONS,
                    "message": format!("too many sessions: {open} open, at most {} allowed; retry later", cap.max),
                },
            });
            return (
                http::StatusCode::SERVICE_UNAVAILABLE,
                [
                    (http::header::CONTENT_TYPE, "application/json"),
                    (http::header::RETRY_AFTER, "1"),
                ],
                reply.to_string(),
            )
                .into_response();
        }
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}

const SESSION_ID: &str = "mcp-session-id";

/// Whether `prefix` may start session ids: 1 to 32 ASCII letters, digits,
/// `-` or `_` (a load balancer matches it; a header value must hold it).
pub(crate) fn session_prefix_is_valid(prefix: &str) -> bool {
    (1..=32).contains(&prefix.len())
        && prefix
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Takes `prefix` (`NAME.`) off the session id a request carries and puts it
/// before the one a response hands out. An id without the prefix is passed on
/// as it came.
pub(crate) async fn prefix_session_ids(prefix: &str, mut req: Request, next: Next) -> Response {
    let inner = req
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix(prefix))
        .and_then(|v| http::HeaderValue::from_str(v).ok());
    if let Some(inner) = inner {
        req.headers_mut().insert(SESSION_ID, inner);
    }
    let mut response = next.run(req).await;
    let outer = response
        .headers()
        .get(SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| http::HeaderValue::from_str(&format!("{prefix}{v}")).ok());
    if let Some(outer) = outer {
        response.headers_mut().insert(SESSION_ID, outer);
    }
    response
}
