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
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;
use toolrouter_providers::{StopReason, Usage};

pub(crate) use self::items::ItemStore;
use self::items::{OutputItem, Part, Status};
use self::request::ResponsesRequest;
use self::stream::ResponseWriter;
use super::completion::Completion;
use super::conversation::Conversation;
use super::error::ApiError;
use super::handlers::{
    ProxyState, client_key, complete_turn, json_response, read_body, read_off_thread, serve_door,
    stream,
};
use super::meta::ChunkMeta;
use super::record::{Door, RequestRecord};

/// Reads a Responses body into the Chat Completions body it translates into
/// (the fuzz targets' entry).
#[cfg(fuzzing)]
pub(crate) fn read_responses_request(
    body: &[u8],
    items: &ItemStore,
) -> Result<super::chat_json::ChatJson, ApiError> {
    ResponsesRequest::read(body, items).map(|read| read.body)
}

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
    let items = Arc::clone(&state.items);
    let request =
        read_off_thread(body.len(), move || ResponsesRequest::read(&body, &items)).await?;
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
        let usage = completion.usage.clone();
        let (head, status, output) = response_of(completion);
        let text_len = request.echo.len() + output.iter().map(|i| i.text_len()).sum::<usize>();
        let response = json_response(
            &ResponseOut {
                head: &head,
                status,
                output: &output,
                usage: usage.as_ref(),
                error: None,
                echo: &request.echo,
            },
            text_len,
        );
        state.items.keep(output.iter());
        Ok(response)
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
}

/// The request's settings a `response` object repeats, each as JSON text
/// (`tools`, `tool_choice`, `instructions`, `metadata`, …): held once for
/// the answer, written into each `response` object as it is.
#[derive(Debug, Default)]
pub(crate) struct Echo {
    fields: Vec<(&'static str, Box<RawValue>)>,
}

impl Echo {
    /// Adds a setting (its JSON text, with no line break).
    pub(crate) fn push(&mut self, key: &'static str, value: Box<RawValue>) {
        self.fields.push((key, value));
    }

    /// The bytes of its text.
    pub(crate) fn len(&self) -> usize {
        self.fields
            .iter()
            .map(|(k, v)| k.len() + v.get().len())
            .sum()
    }
}

/// A `response` object: `status`, its `output` items (those done), `usage`,
/// the request's settings (`echo`) and, for a failed one, its `error`.
pub(crate) struct ResponseOut<'a> {
    pub(crate) head: &'a Head,
    pub(crate) status: Status,
    /// The items, those done among them written.
    pub(crate) output: &'a [Arc<OutputItem>],
    pub(crate) usage: Option<&'a Usage>,
    /// A failure's code and message.
    pub(crate) error: Option<(&'a str, &'a str)>,
    pub(crate) echo: &'a Echo,
}

/// A status that is not an item's: `failed`.
pub(crate) const FAILED: &str = "failed";

impl ResponseOut<'_> {
    fn status(&self) -> &'static str {
        if self.error.is_some() {
            FAILED
        } else {
            self.status.as_str()
        }
    }
}

impl Serialize for ResponseOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("id", &self.head.id)?;
        map.serialize_entry("object", "response")?;
        map.serialize_entry("created_at", &self.head.created_at)?;
        map.serialize_entry("status", self.status())?;
        map.serialize_entry("model", &self.head.model)?;
        map.serialize_entry("output", &DoneItems(self.output))?;
        let error = self.error.map(|(code, message)| Failure { code, message });
        map.serialize_entry("error", &error)?;
        let incomplete = (self.status() == "incomplete").then_some(Incomplete {
            reason: "max_output_tokens",
        });
        map.serialize_entry("incomplete_details", &incomplete)?;
        map.serialize_entry("usage", &self.usage.map(UsageOut::of))?;
        for (key, value) in &self.echo.fields {
            map.serialize_entry(key, &**value)?;
        }
        map.end()
    }
}

/// The items of an output that are done (an item still open is left out).
struct DoneItems<'a>(&'a [Arc<OutputItem>]);

impl Serialize for DoneItems<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().filter(|item| item.is_done()))
    }
}

/// A failed response's `error`.
#[derive(Serialize)]
struct Failure<'a> {
    code: &'a str,
    message: &'a str,
}

#[derive(Serialize)]
struct Incomplete {
    reason: &'static str,
}

/// The Responses `usage` object.
#[derive(Serialize)]
pub(crate) struct UsageOut {
    input_tokens: u64,
    input_tokens_details: CachedTokens,
    output_tokens: u64,
    output_tokens_details: ReasoningTokens,
    total_tokens: u64,
}

#[derive(Serialize)]
struct CachedTokens {
    cached_tokens: u64,
}

#[derive(Serialize)]
struct ReasoningTokens {
    reasoning_tokens: u64,
}

impl UsageOut {
    /// The object for `usage`.
    pub(crate) fn of(usage: &Usage) -> Self {
        let input = usage.input_tokens.unwrap_or(0);
        let output = usage.output_tokens.unwrap_or(0);
        Self {
            input_tokens: input,
            input_tokens_details: CachedTokens { cached_tokens: 0 },
            output_tokens: output,
            output_tokens_details: ReasoningTokens {
                reasoning_tokens: 0,
            },
            total_tokens: usage.total_tokens.unwrap_or(input.saturating_add(output)),
        }
    }
}

/// A one-piece answer as a `response`'s head, status and items: a
/// `reasoning` item, a `message` item (the text, then the refusal), a
/// `function_call` item per call; `length` makes it `incomplete`. The
/// answer's text moves into the items.
fn response_of(completion: Completion) -> (Head, Status, Vec<Arc<OutputItem>>) {
    let head = Head::of(&completion.meta);
    let status = match completion.stop {
        StopReason::MaxTokens => Status::Incomplete,
        _ => Status::Completed,
    };
    let mut output = Vec::new();
    if !completion.reasoning.is_empty() {
        output.push(OutputItem::Reasoning {
            id: format!("rs_{}", head.bare),
            status: Status::Completed,
            text: Some(completion.reasoning),
        });
    }
    let mut parts = Vec::new();
    if !completion.content.is_empty() {
        parts.push(Part {
            refusal: false,
            text: completion.content,
        });
    }
    if !completion.refusal.is_empty() {
        parts.push(Part {
            refusal: true,
            text: completion.refusal,
        });
    }
    if !parts.is_empty() {
        output.push(OutputItem::Message {
            id: format!("msg_{}", head.bare),
            status,
            parts,
        });
    }
    for call in completion.calls {
        output.push(OutputItem::call(
            call.id,
            call.name,
            call.arguments,
            Status::Completed,
        ));
    }
    (head, status, output.into_iter().map(Arc::new).collect())
}

#[cfg(test)]
mod tests;
