//! The front door's handlers: `POST /v1/chat/completions` (a stream of chunks
//! or one answer), `GET /v1/models` passed through, and the error answers for
//! everything else; what the doors share (`stream`, `complete_turn`,
//! `read_body`, `client_key`).

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use http::StatusCode;
use toolrouter_providers::Wire;
use tracing::Instrument as _;

use super::chunks::ChunkWriter;
use super::completion::{Completion, CompletionBuilder};
use super::conversation::Conversation;
use super::error::{ApiError, INVALID_REQUEST};
use super::record::{Door, RequestRecord};
use super::request::{ChatRequest, UpstreamShape};
use super::turn::FrameWriter;
use super::upstream::Upstream;
use crate::detect::DetectConfig;

/// What every request of one proxy shares.
#[derive(Debug)]
pub(crate) struct ProxyState {
    pub(crate) upstream: Upstream,
    pub(crate) wire: Wire,
    pub(crate) detect: DetectConfig,
    pub(crate) max_request_bytes: usize,
    pub(crate) max_turn_bytes: usize,
    pub(crate) text_tools: bool,
    /// The server-side tools (`--config`, `--builtins`), run by the proxy.
    pub(crate) server_tools: Option<crate::hub::Hub>,
    /// The most server-side rounds one request may take.
    pub(crate) max_steps: usize,
    /// The Responses door's recent output items, shared by every thread.
    pub(crate) items: Arc<super::responses::ItemStore>,
    /// `--constrain`: the grammars sent with requests, if any.
    pub(crate) constrain: Option<Arc<super::constrain::ConstrainPlan>>,
}

impl ProxyState {
    /// What the upstream takes.
    pub(crate) fn shape(&self) -> UpstreamShape {
        UpstreamShape {
            wire: self.wire,
            text_tools: self.text_tools,
            max_request_bytes: self.max_request_bytes,
            constrain: self.constrain.clone(),
        }
    }
}

/// One request's future at a front door, borrowing its record.
pub(super) type DoorFuture<'r> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, ApiError>> + Send + 'r>>;

/// Serves one request of `door` inside its record's span: `handle` does the
/// work; an error ends the record and is answered in the door's shape
/// (`error_response`).
pub(super) async fn serve_door<F>(
    door: Door,
    error_response: fn(ApiError) -> Response,
    handle: F,
) -> Response
where
    F: for<'r> FnOnce(&'r mut RequestRecord) -> DoorFuture<'r>,
{
    let mut record = RequestRecord::new(door);
    let span = record.span();
    async move {
        match handle(&mut record).await {
            Ok(response) => response,
            Err(error) => {
                record.end(error.status, &error.outcome());
                error_response(error)
            }
        }
    }
    .instrument(span)
    .await
}

/// `POST /v1/chat/completions`.
pub(crate) async fn chat_completions(
    State(state): State<Arc<ProxyState>>,
    request: Request,
) -> Response {
    serve_door(Door::OpenAi, IntoResponse::into_response, move |record| {
        Box::pin(chat(state, request, record))
    })
    .await
}

/// The request; `record` moves into the turn once the upstream answered.
async fn chat(
    state: Arc<ProxyState>,
    request: Request,
    record: &mut RequestRecord,
) -> Result<Response, ApiError> {
    let client_key = client_key(request.headers());
    let body = read_body(request.into_body(), state.max_request_bytes).await?;
    tracing::trace!(body = %String::from_utf8_lossy(&body), "request body");
    let chat = read_off_thread(body.len(), move || ChatRequest::read(body)).await?;
    record.request(&chat.model, chat.stream);
    let turn = Conversation::start(state, chat.body, chat.catalog, client_key, record).await?;
    if chat.stream {
        Ok(stream(
            turn,
            ChunkWriter::new(chat.include_usage),
            chat.model,
        ))
    } else {
        complete(turn, chat.model).await
    }
}

/// The answer as an SSE stream of the front door's frames (`writer`).
/// Dropping the body (the client went away) drops the upstream's response,
/// which closes its connection.
pub(super) fn stream<W: FrameWriter>(turn: Conversation, writer: W, model: String) -> Response {
    struct Streaming<W> {
        turn: Conversation,
        writer: W,
        events: Vec<crate::router::RouteEvent>,
        model: String,
    }
    let state = Streaming {
        turn,
        writer,
        events: Vec::new(),
        model,
    };
    let frames = futures::stream::unfold(state, |mut s| {
        let span = s.turn.record().span();
        async move {
            loop {
                let mut held = Vec::new();
                if s.writer.held(&mut held) {
                    return Some((Ok::<_, Infallible>(Bytes::from(held)), s));
                }
                if s.writer.ended() || !s.turn.next(&mut s.events).await {
                    let outcome = s.writer.failure().unwrap_or("ok");
                    s.turn.record().end(StatusCode::OK, outcome);
                    return None;
                }
                let mut out = Vec::new();
                let Streaming {
                    turn,
                    writer,
                    events,
                    model,
                } = &mut s;
                writer.write(events, &|| turn.meta(model), &mut out);
                if !out.is_empty() {
                    return Some((Ok::<_, Infallible>(Bytes::from(out)), s));
                }
            }
        }
        .instrument(span)
    });
    let mut response = Response::new(Body::from_stream(frames));
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    response
}

/// The answer in one piece.
async fn complete(turn: Conversation, model: String) -> Result<Response, ApiError> {
    let completion = complete_turn(turn, &model).await?;
    Ok(json_response(&completion, completion.text_len()))
}

/// A `200` whose body is `value` as JSON, written in one allocation when
/// `text_len` (the bytes of text it holds) is about its length.
pub(super) fn json_response(value: &impl serde::Serialize, text_len: usize) -> Response {
    let mut body = Vec::with_capacity(text_len.saturating_add(text_len / 16).saturating_add(1024));
    if let Err(e) = serde_json::to_writer(&mut body, value) {
        tracing::debug!(error = %e, "an answer could not be written");
        body = b"null".to_vec();
    }
    ([(http::header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Reads the whole turn into one [`Completion`] (every door's one-piece
/// answers), logging how it ended.
pub(super) async fn complete_turn(
    mut turn: Conversation,
    model: &str,
) -> Result<Completion, ApiError> {
    let mut builder = CompletionBuilder::default();
    let mut events = Vec::new();
    while turn.next(&mut events).await {
        builder.push(&mut events);
        if builder.failed() {
            break;
        }
    }
    let built = builder.build(turn.meta(model));
    match &built {
        Ok(_) => turn.record().end(StatusCode::OK, "ok"),
        Err(error) => turn.record().end(error.status, &error.outcome()),
    }
    built
}

/// `GET /v1/models` and `GET /v1/models/{id}`: the upstream's answer as it
/// came, translated for Gemini and Ollama (`models.rs`).
pub(crate) async fn models(State(state): State<Arc<ProxyState>>, request: Request) -> Response {
    let client_key = client_key(request.headers());
    // The path as the client wrote it (still percent-encoded), below `/v1/`.
    let path = request
        .uri()
        .path()
        .strip_prefix("/v1/")
        .unwrap_or("models")
        .to_owned();
    if path.split('/').any(is_dot_segment) {
        // `models/../x` would reach another upstream path, with its key.
        return ApiError::bad_request("a model id has no `.` or `..` path segment", None)
            .into_response();
    }
    if state.wire == Wire::Bedrock {
        return super::models::bedrock_has_no_list();
    }
    if let Some(list_url) = state.upstream.models_url() {
        return super::models::translated(
            &state.upstream,
            state.wire,
            &list_url,
            &path,
            client_key.as_deref(),
        )
        .await;
    }
    match state.upstream.get(&path, client_key.as_deref()).await {
        Ok(passed) => {
            let mut response = Response::new(Body::from(passed.body));
            *response.status_mut() = passed.status;
            let content_type = passed
                .content_type
                .unwrap_or_else(|| http::HeaderValue::from_static("application/json"));
            response
                .headers_mut()
                .insert(http::header::CONTENT_TYPE, content_type);
            response
        }
        Err(error) => error.into_response(),
    }
}

/// `.` or `..`, written plainly or percent-encoded.
fn is_dot_segment(segment: &str) -> bool {
    let decoded = segment.replace("%2e", ".").replace("%2E", ".");
    decoded == "." || decoded == ".."
}

/// Any other path.
pub(crate) async fn not_found(request: Request) -> Response {
    let error = ApiError::new(
        StatusCode::NOT_FOUND,
        format!(
            "no such endpoint: {} {} (the proxy serves POST /v1/chat/completions, POST /v1/messages, POST /v1/responses and GET /v1/models)",
            request.method(),
            crate::core::echo(request.uri().path())
        ),
        INVALID_REQUEST,
        Some("unknown_url"),
    );
    super::anthropic::error_for_path(request.uri().path(), error)
}

/// A known path with the wrong method.
pub(crate) async fn method_not_allowed(request: Request) -> Response {
    let error = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!(
            "{} is not allowed on {}",
            request.method(),
            crate::core::echo(request.uri().path())
        ),
        INVALID_REQUEST,
        Some("method_not_allowed"),
    );
    super::anthropic::error_for_path(request.uri().path(), error)
}

/// The client's own key: `Authorization: Bearer KEY`, else `x-api-key: KEY`
/// (the Anthropic SDKs' header).
pub(super) fn client_key(headers: &http::HeaderMap) -> Option<String> {
    let bearer = || {
        let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
        let (scheme, key) = value.split_once(' ')?;
        let key = key.trim();
        (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then(|| key.to_owned())
    };
    bearer().or_else(|| {
        let key = headers.get("x-api-key")?.to_str().ok()?.trim();
        (!key.is_empty()).then(|| key.to_owned())
    })
}

/// The request body, at most `max` bytes (`413` past it), in one allocation
/// of its `Content-Length` when it has one.
pub(super) async fn read_body(body: Body, max: usize) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is over the proxy's limit of {max} bytes"),
            INVALID_REQUEST,
            Some("request_too_large"),
        )
    };
    let hint = http_body::Body::size_hint(&body);
    if hint.exact().is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let mut stream = body.into_data_stream();
    let expected = usize::try_from(hint.lower()).unwrap_or(max).min(max);
    let mut buf = Vec::with_capacity(expected);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(format!("the request body could not be read: {e}"), None)
        })?;
        if buf.len() + chunk.len() > max {
            return Err(too_large());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf)
}

/// Request bodies from this size on are read (parsed, translated) and
/// written for the upstream on a blocking thread: a serving thread's other
/// connections do not wait for them. Smaller ones are read in place, where
/// the hand-off to another thread would cost more than the reading.
pub(super) const READ_INLINE_MAX: usize = 64 * 1024;

/// Runs `read`, the reading of a `len`-byte request body: in place for a
/// small one, on tokio's blocking threads from [`READ_INLINE_MAX`] on.
pub(super) async fn read_off_thread<T: Send + 'static>(
    len: usize,
    read: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    if len < READ_INLINE_MAX {
        return read();
    }
    tokio::task::spawn_blocking(read).await.map_err(|e| {
        tracing::error!(error = %e, "reading a request body failed");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the request body could not be read",
            "server_error",
            Some("internal_error"),
        )
    })?
}
