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
use serde_json::json;

use self::request::MessagesRequest;
use self::stream::EventWriter;
use super::completion::Completion;
use super::conversation::Conversation;
use super::error::ApiError;
use super::handlers::{
    ProxyState, client_key, complete_turn, json_response, read_body, read_off_thread, serve_door,
    stream,
};
use super::record::{Door, RequestRecord};

/// Reads a Messages body into the Chat Completions body it translates into
/// (the fuzz targets' entry).
#[cfg(fuzzing)]
pub(crate) fn read_messages_request(body: &[u8]) -> Result<super::chat_json::ChatJson, ApiError> {
    MessagesRequest::read(body).map(|read| read.body)
}

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
    let request = read_off_thread(body.len(), move || MessagesRequest::read(&body)).await?;
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
    Ok(json_response(
        &MessageOut(&completion),
        completion.text_len(),
    ))
}

/// A [`Completion`] as an Anthropic `message`: a `thinking` block for the
/// reasoning, a `text` block for the text and the refusal, a `tool_use`
/// block per call (its `input` the call's arguments), written from the
/// completion's fields.
struct MessageOut<'a>(&'a Completion);

impl serde::Serialize for MessageOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let completion = self.0;
        let mut content = Vec::new();
        if !completion.reasoning.is_empty() {
            content.push(Block::Thinking {
                thinking: &completion.reasoning,
                signature: "",
            });
        }
        if !completion.content.is_empty() || !completion.refusal.is_empty() {
            content.push(Block::Text {
                text: TextOf(&completion.content, &completion.refusal),
            });
        }
        for call in &completion.calls {
            // The arguments are a JSON object's text (the router read them).
            let input = serde_json::from_str(&call.arguments).ok();
            content.push(Block::ToolUse {
                id: &call.id,
                name: &call.name,
                input: Input(input),
            });
        }
        let stop = match completion.finish_reason() {
            "tool_calls" => "tool_use",
            "length" => "max_tokens",
            "content_filter" => "refusal",
            _ => "end_turn",
        };
        let usage = completion.usage.as_ref();
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("id", &message_id(&completion.meta.id))?;
        map.serialize_entry("type", "message")?;
        map.serialize_entry("role", "assistant")?;
        map.serialize_entry("model", &completion.meta.model)?;
        map.serialize_entry("content", &content)?;
        map.serialize_entry("stop_reason", stop)?;
        map.serialize_entry("stop_sequence", &())?;
        map.serialize_entry(
            "usage",
            &json!({
                "input_tokens": usage.and_then(|u| u.input_tokens).unwrap_or(0),
                "output_tokens": usage.and_then(|u| u.output_tokens).unwrap_or(0),
            }),
        )?;
        map.end()
    }
}

/// A call's `input`: its arguments' JSON text, or `{}` when it cannot be
/// read back.
struct Input<'a>(Option<&'a serde_json::value::RawValue>);

impl serde::Serialize for Input<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(raw) => raw.serialize(s),
            None => serde::ser::SerializeMap::end(s.serialize_map(Some(0))?),
        }
    }
}

/// A message's content block.
#[derive(serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Thinking {
        thinking: &'a str,
        signature: &'static str,
    },
    Text {
        text: TextOf<'a>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Input<'a>,
    },
}

/// The text and the refusal, as one string (Anthropic has no refusal
/// field).
struct TextOf<'a>(&'a str, &'a str);

impl serde::Serialize for TextOf<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}{}", self.0, self.1))
    }
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
pub(crate) fn anthropic_body(error: &ApiError) -> serde_json::Value {
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
