//! The Anthropic Messages front door, `POST /v1/messages`, before the same
//! OpenAI-compatible upstream: `request.rs` translates the client's request
//! into a Chat Completions one, the upstream's answer is routed as for the
//! OpenAI door, and `stream.rs` writes it as Anthropic SSE events; the
//! one-piece answer is the OpenAI door's completion, translated here into a
//! `message`. Every fault is answered in Anthropic's error shape.

mod request;
mod stream;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

use self::request::MessagesRequest;
use self::stream::EventWriter;
use super::conversation::Conversation;
use super::error::ApiError;
use super::handlers::{ProxyState, client_key, complete_turn, read_body, serve_door, stream};
use super::record::{Door, RequestRecord};

/// `POST /v1/messages`.
pub(crate) async fn messages(State(state): State<Arc<ProxyState>>, request: Request) -> Response {
    serve_door(
        Door::Anthropic,
        |error| anthropic_error(&error),
        move |record| Box::pin(async move { handle(&state, request, record).await }),
    )
    .await
}

/// The request; `record` moves into the turn once the upstream answered.
async fn handle(
    state: &Arc<ProxyState>,
    request: Request,
    record: &mut RequestRecord,
) -> Result<Response, ApiError> {
    let client_key = client_key(request.headers());
    let body = read_body(request.into_body(), state.max_request_bytes).await?;
    tracing::trace!(body = %String::from_utf8_lossy(&body), "request body");
    let request = MessagesRequest::read(&body)?;
    drop(body);
    record.request(&request.model, request.stream);
    let turn = Conversation::start(
        Arc::clone(state),
        request.body,
        request.catalog,
        client_key,
        record,
    )
    .await?;
    if request.stream {
        Ok(stream(turn, EventWriter::default(), request.model))
    } else {
        complete(turn, &request.model).await
    }
}

/// The answer in one piece: the OpenAI door's completion, as a `message`.
async fn complete(turn: Conversation, model: &str) -> Result<Response, ApiError> {
    let completion = complete_turn(turn, model).await?;
    let message = message_of(&completion);
    Ok((
        [(http::header::CONTENT_TYPE, "application/json")],
        message.to_string(),
    )
        .into_response())
}

/// A `chat.completion` as an Anthropic `message`: a `thinking` block for the
/// reasoning, a `text` block for the text and the refusal, a `tool_use` block
/// per call.
fn message_of(completion: &Value) -> Value {
    let choice = &completion["choices"][0];
    let message = &choice["message"];
    let mut content = Vec::new();
    if let Some(reasoning) = message["reasoning_content"].as_str() {
        content.push(json!({"type": "thinking", "thinking": reasoning, "signature": ""}));
    }
    let text = [&message["content"], &message["refusal"]]
        .iter()
        .filter_map(|v| v.as_str())
        .collect::<String>();
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    let calls = message["tool_calls"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    for call in calls {
        let arguments = call["function"]["arguments"].as_str().unwrap_or("{}");
        let input: Value = serde_json::from_str(arguments).unwrap_or_else(|_| json!({}));
        content.push(json!({
            "type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": input,
        }));
    }
    let stop = match choice["finish_reason"].as_str() {
        Some("tool_calls") => "tool_use",
        Some("length") => "max_tokens",
        Some("content_filter") => "refusal",
        _ => "end_turn",
    };
    let usage = &completion["usage"];
    json!({
        "id": message_id(completion["id"].as_str().unwrap_or("")),
        "type": "message",
        "role": "assistant",
        "model": completion["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": null,
        "usage": {
            "input_tokens": usage["prompt_tokens"].as_u64().unwrap_or(0),
            "output_tokens": usage["completion_tokens"].as_u64().unwrap_or(0),
        },
    })
}

/// The message id for the upstream's completion id: `msg_` and the id
/// without its `chatcmpl-` prefix.
pub(crate) fn message_id(id: &str) -> String {
    if id.starts_with("msg_") && id.len() > 4 {
        // An Anthropic upstream's own id.
        return id.to_owned();
    }
    let bare = id.strip_prefix("chatcmpl-").unwrap_or(id);
    if bare.is_empty() {
        format!("msg_{}", uuid::Uuid::new_v4().simple())
    } else {
        format!("msg_{bare}")
    }
}

/// An error answer for a request to `path`: Anthropic's shape on the
/// Anthropic door (`/v1/messages…`), OpenAI's elsewhere.
pub(crate) fn error_for_path(path: &str, error: ApiError) -> Response {
    if is_messages_path(path) {
        anthropic_error(&error)
    } else {
        error.into_response()
    }
}

/// Whether `path` is the Messages door's, `/v1/messages` or under it.
pub(crate) fn is_messages_path(path: &str) -> bool {
    path.strip_prefix("/v1/messages")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Anthropic's error `type` for a status.
fn error_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 405 | 422 => "invalid_request_error",
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    }
}

/// An error answer in Anthropic's shape,
/// `{"type": "error", "error": {"type", "message"}}`, with the same status.
pub(crate) fn anthropic_error(error: &ApiError) -> Response {
    let mut response = (
        error.status,
        [(http::header::CONTENT_TYPE, "application/json")],
        anthropic_body(error).to_string(),
    )
        .into_response();
    if error.status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The body of an error answer in Anthropic's shape,
/// `{"type": "error", "error": {"type", "message"}}`.
pub(crate) fn anthropic_body(error: &ApiError) -> Value {
    let message = error.error["message"]
        .as_str()
        .unwrap_or("the request failed");
    json!({
        "type": "error",
        "error": {"type": error_type(error.status), "message": message},
    })
}

#[cfg(test)]
mod tests;
