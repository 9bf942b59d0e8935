//! The OpenAI Responses front door, `POST /v1/responses`: `request.rs`
//! translates the client's request into a Chat Completions one for the same
//! upstream (either wire), the answer is routed as for the other doors, and
//! `stream.rs` writes it as Responses SSE events; the one-piece answer is the
//! Chat door's completion, translated here into a `response` object. Errors
//! are OpenAI's shape, as on the Chat door. The proxy stores nothing: no
//! `previous_response_id`, no `GET /v1/responses/{id}`.

mod items;
mod request;
mod stream;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

pub(crate) use self::items::ItemStore;
use self::request::ResponsesRequest;
use self::stream::ResponseWriter;
use super::conversation::Conversation;
use super::error::ApiError;
use super::handlers::{ProxyState, client_key, complete_turn, read_body, serve_door, stream};
use super::meta::ChunkMeta;
use super::record::{Door, RequestRecord};

/// `POST /v1/responses`.
pub(crate) async fn responses(State(state): State<Arc<ProxyState>>, request: Request) -> Response {
    serve_door(
        Door::Responses,
        IntoResponse::into_response,
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
    let request = ResponsesRequest::read(&body, &state.items)?;
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
        let writer = ResponseWriter::new(request.echo, Arc::clone(&state.items));
        Ok(stream(turn, writer, request.model))
    } else {
        let completion = complete_turn(turn, &request.model).await?;
        let response = response_of(&completion, &request.echo);
        if let Some(Value::Array(output)) = response.get("output") {
            state.items.keep(output);
        }
        Ok((
            [(http::header::CONTENT_TYPE, "application/json")],
            response.to_string(),
        )
            .into_response())
    }
}

/// What every `response` object of one answer shares.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    /// `resp_…`.
    pub(crate) id: String,
    /// The upstream's id without its prefix, for the items' ids.
    pub(crate) bare: String,
    pub(crate) created_at: u64,
    pub(crate) model: String,
}

impl Head {
    /// The head for the upstream's id, model and time.
    pub(crate) fn new(id: &str, model: &str, created: u64) -> Self {
        // A Responses upstream's own `resp_` id is kept as it came.
        let bare = ["chatcmpl-", "msg_", "resp_"]
            .iter()
            .find_map(|prefix| id.strip_prefix(prefix))
            .unwrap_or(id);
        let bare = if bare.is_empty() {
            uuid::Uuid::new_v4().simple().to_string()
        } else {
            bare.to_owned()
        };
        Self {
            id: format!("resp_{bare}"),
            bare,
            created_at: created,
            model: model.to_owned(),
        }
    }

    fn of(meta: &ChunkMeta) -> Self {
        Self::new(&meta.id, &meta.model, meta.created)
    }

    /// A `response` object: `status`, its `output` items, `usage`, the
    /// request's settings (`echo`) and, for a failed one, its `error`.
    pub(crate) fn response(
        &self,
        echo: &Map<String, Value>,
        status: &str,
        output: Vec<Value>,
        usage: Value,
        error: Value,
    ) -> Value {
        let mut object = Map::new();
        object.insert("id".to_owned(), json!(self.id));
        object.insert("object".to_owned(), json!("response"));
        object.insert("created_at".to_owned(), json!(self.created_at));
        object.insert("status".to_owned(), json!(status));
        object.insert("model".to_owned(), json!(self.model));
        object.insert("output".to_owned(), Value::Array(output));
        object.insert("error".to_owned(), error);
        let incomplete = match status {
            "incomplete" => json!({"reason": "max_output_tokens"}),
            _ => Value::Null,
        };
        object.insert("incomplete_details".to_owned(), incomplete);
        object.insert("usage".to_owned(), usage);
        for (key, value) in echo {
            object.insert(key.clone(), value.clone());
        }
        Value::Object(object)
    }
}

/// A `message` item holding `content` parts.
pub(crate) fn message_item(id: &str, status: &str, content: Vec<Value>) -> Value {
    json!({"type": "message", "id": id, "status": status, "role": "assistant", "content": content})
}

/// An `output_text` part, or a `refusal` one.
pub(crate) fn content_part(refusal: bool, text: &str) -> Value {
    if refusal {
        json!({"type": "refusal", "refusal": text})
    } else {
        json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
    }
}

/// A `reasoning` item: the reasoning as its one summary text.
pub(crate) fn reasoning_item(id: &str, status: &str, text: Option<&str>) -> Value {
    let summary = match text {
        Some(text) => json!([{"type": "summary_text", "text": text}]),
        None => json!([]),
    };
    json!({"type": "reasoning", "id": id, "status": status, "summary": summary})
}

/// A `function_call` item; its id is `fc_` and the call id.
pub(crate) fn call_item(call_id: &str, name: &str, arguments: &str, status: &str) -> Value {
    let bare = call_id.strip_prefix("call_").unwrap_or(call_id);
    json!({"type": "function_call", "id": format!("fc_{bare}"), "call_id": call_id,
           "name": name, "arguments": arguments, "status": status})
}

/// The Responses `usage` object.
pub(crate) fn usage_of(input: u64, output: u64, total: Option<u64>) -> Value {
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total.unwrap_or(input.saturating_add(output)),
    })
}

/// A `chat.completion` as a `response`: a `reasoning` item, a `message` item
/// (the text, then the refusal), a `function_call` item per call; `length`
/// makes it `incomplete`.
fn response_of(completion: &Value, echo: &Map<String, Value>) -> Value {
    let choice = &completion["choices"][0];
    let message = &choice["message"];
    let head = Head::new(
        completion["id"].as_str().unwrap_or(""),
        completion["model"].as_str().unwrap_or(""),
        completion["created"].as_u64().unwrap_or(0),
    );
    let status = match choice["finish_reason"].as_str() {
        Some("length") => "incomplete",
        _ => "completed",
    };
    let mut output = Vec::new();
    if let Some(reasoning) = message["reasoning_content"].as_str() {
        output.push(reasoning_item(
            &format!("rs_{}", head.bare),
            "completed",
            Some(reasoning),
        ));
    }
    let mut parts = Vec::new();
    if let Some(text) = message["content"].as_str().filter(|t| !t.is_empty()) {
        parts.push(content_part(false, text));
    }
    if let Some(refusal) = message["refusal"].as_str().filter(|t| !t.is_empty()) {
        parts.push(content_part(true, refusal));
    }
    if !parts.is_empty() {
        output.push(message_item(&format!("msg_{}", head.bare), status, parts));
    }
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        output.push(call_item(
            call["id"].as_str().unwrap_or(""),
            call["function"]["name"].as_str().unwrap_or(""),
            call["function"]["arguments"].as_str().unwrap_or("{}"),
            "completed",
        ));
    }
    let usage = &completion["usage"];
    let usage = if usage.is_object() {
        usage_of(
            usage["prompt_tokens"].as_u64().unwrap_or(0),
            usage["completion_tokens"].as_u64().unwrap_or(0),
            usage["total_tokens"].as_u64(),
        )
    } else {
        Value::Null
    };
    head.response(echo, status, output, usage, Value::Null)
}

/// A `response.failed`'s `error`: its `code` and `message`.
pub(crate) fn failure(code: &str, message: &str) -> Value {
    json!({"code": code, "message": message})
}

#[cfg(test)]
mod tests;
