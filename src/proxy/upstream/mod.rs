//! `Upstream`: the model server behind the proxy: its URLs, its key, and the
//! HTTP clients that reach it: the worker's own connection pool (`pool.rs`)
//! for chat requests to a plain-`http` upstream that no system proxy covers,
//! reqwest for the rest. An answer that is not a success becomes an
//! `ApiError` carrying the upstream's status.

mod pool;

use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use http::uri::PathAndQuery;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use toolrouter_providers::{ProviderProfile, Wire};

use super::error::{ApiError, ProxyError};
use super::options::{ProxyOptions, UpstreamKey};
use super::record::RequestRecord;
use super::request::{LazyCompletion, written};
use crate::chat::endpoint;
use crate::chat::endpoint::{key_header, models_url};

pub(crate) use crate::core::without_userinfo;

/// The Messages API version sent to an Anthropic upstream (the one the
/// router's Anthropic adapter reads).
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The most bytes of an upstream's error answer read.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The most bytes of a passed-through answer (`/v1/models`).
const MAX_PASSED_BYTES: usize = 4 * 1024 * 1024;

/// Why an upstream's answer did not come, or broke off.
#[derive(Debug)]
pub(crate) enum UpstreamError {
    /// reqwest's (TLS, proxied and non-chat requests).
    Client(reqwest::Error),
    /// The pool's HTTP/1 protocol.
    Http(hyper::Error),
    /// The pool could not connect.
    Connect(std::io::Error),
    /// The pool's connect or read timeout passed, while doing this.
    Timeout(&'static str),
    /// A kept-alive connection and a new one both closed before the request
    /// was written.
    Closed,
}

impl std::fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Client(e) => e.fmt(f),
            Self::Http(e) => e.fmt(f),
            Self::Connect(e) => write!(f, "cannot connect: {e}"),
            Self::Timeout(doing) => write!(f, "timed out {doing}"),
            Self::Closed => f.write_str("the connection closed before the request was sent"),
        }
    }
}

impl std::error::Error for UpstreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Client(e) => e.source(),
            Self::Http(e) => std::error::Error::source(e),
            Self::Connect(e) => e.source(),
            Self::Timeout(_) | Self::Closed => None,
        }
    }
}

impl UpstreamError {
    fn is_timeout(&self) -> bool {
        match self {
            Self::Client(e) => e.is_timeout(),
            Self::Timeout(_) => true,
            _ => false,
        }
    }
}

/// An upstream answer's body, as it comes.
pub(crate) type AnswerStream = BoxStream<'static, Result<Bytes, UpstreamError>>;

/// How chat requests reach the upstream. Each target is parsed once, and is
/// `None` for the wires that put the model in the URL (Gemini, Bedrock),
/// whose URL is made per request.
enum ChatRoute {
    /// Over the worker's own connections: a plain-`http` upstream that no
    /// system proxy covers; the chat URL's path and query.
    Pooled(Arc<pool::Pool>, Option<PathAndQuery>),
    /// Through reqwest (TLS, system proxies): the chat URL.
    Client(Option<reqwest::Url>),
}

/// The upstream of one proxy.
pub(crate) struct Upstream {
    /// Chat requests through the route, the model lists through reqwest.
    client: reqwest::Client,
    chat: ChatRoute,
    profile: &'static ProviderProfile,
    wire: Wire,
    /// The base URL, without a trailing `/`.
    base: String,
    key_source: UpstreamKey,
    /// The profile's key, read once.
    env_key: Option<String>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the chat route: its URL may hold a password.
        f.debug_struct("Upstream")
            .field("profile", &self.profile.name)
            .field("base", &without_userinfo(&self.base))
            .field("key_source", &self.key_source)
            .field("env_key", &self.env_key.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

/// An answer passed through as it came (status, content type, body).
pub(crate) struct Passed {
    pub(crate) status: StatusCode,
    pub(crate) content_type: Option<HeaderValue>,
    pub(crate) body: Bytes,
}

impl Upstream {
    /// The upstream of `options`, on `profile`'s `wire`.
    pub(crate) fn new(
        options: &ProxyOptions,
        profile: &'static ProviderProfile,
        wire: Wire,
    ) -> Result<Self, ProxyError> {
        let base = options.upstream.trim_end_matches('/').to_owned();
        let per_model = model_in_url(wire);
        // A model stands in for the check of the base URL where the URL takes one.
        let model = if per_model { "m" } else { "" };
        // The reasons quote the URL as given: without its password.
        let invalid = |reason: String| ProxyError::InvalidUpstream {
            url: without_userinfo(&options.upstream).into_owned(),
            reason: reason.replace(&base, &without_userinfo(&base)),
        };
        let chat = endpoint(&profile.name, wire, &base, model, None)
            .map_err(|e| invalid(e.to_string()))?;
        let mut client = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            // A redirect could carry the key elsewhere; the SDKs' base URLs
            // do not redirect.
            .redirect(reqwest::redirect::Policy::none());
        if let Some(timeout) = options.read_timeout {
            client = client.read_timeout(timeout);
        }
        let client = client
            .build()
            .map_err(|e| ProxyError::Client(e.to_string()))?;
        let proxies = hyper_util::client::proxy::matcher::Matcher::from_system();
        let chat = match pooled_authority(&chat.url, &proxies) {
            Some((authority, host)) => {
                let pool = pool::Pool::new(
                    authority,
                    &host,
                    options.connect_timeout,
                    options.read_timeout,
                    pool::IDLE_TIMEOUT,
                );
                let path = (!per_model).then(|| path_of(&chat.url)).flatten();
                ChatRoute::Pooled(Arc::new(pool), path)
            }
            None if per_model => ChatRoute::Client(None),
            None => ChatRoute::Client(Some(
                reqwest::Url::parse(&chat.url).map_err(|e| invalid(e.to_string()))?,
            )),
        };
        Ok(Self {
            client,
            chat,
            profile,
            wire,
            base,
            key_source: options.upstream_key,
            env_key: profile.api_key_from_env(),
        })
    }

    /// The base URL.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// Sends a chat request for `model` (the URL's, on the wires that put it
    /// there); a success gives its body as a byte stream.
    pub(crate) async fn post_chat(
        &self,
        model: &str,
        body: Vec<u8>,
        client_key: Option<&str>,
        record: &mut RequestRecord,
    ) -> Result<AnswerStream, ApiError> {
        let mut headers = self.json_headers(client_key);
        let accept = match self.wire {
            Wire::Ollama => "application/x-ndjson",
            Wire::Bedrock => "application/vnd.amazon.eventstream",
            _ => "text/event-stream",
        };
        headers.insert(http::header::ACCEPT, HeaderValue::from_static(accept));
        let (status, content_type, stream) = match &self.chat {
            ChatRoute::Pooled(pool, path) => {
                let path = match path {
                    Some(path) => path.clone(),
                    None => {
                        path_of(&self.model_endpoint(model)?).ok_or_else(|| self.model_refused())?
                    }
                };
                let mut request = http::Request::new(pool::PoolBody::new(Bytes::from(body)));
                *request.method_mut() = http::Method::POST;
                *request.uri_mut() = http::Uri::from(path);
                *request.headers_mut() = headers;
                let answered = pool.send(request).await.map_err(unreachable)?;
                let content_type = answered.headers.get(http::header::CONTENT_TYPE).cloned();
                (answered.status, content_type, answered.body.boxed())
            }
            ChatRoute::Client(url) => {
                let url = match url {
                    Some(url) => url.clone(),
                    None => reqwest::Url::parse(&self.model_endpoint(model)?)
                        .map_err(|_| self.model_refused())?,
                };
                let request = self.client.post(url).headers(headers).body(body);
                let response = request
                    .send()
                    .await
                    .map_err(|e| unreachable(UpstreamError::Client(e)))?;
                let content_type = response.headers().get(http::header::CONTENT_TYPE).cloned();
                (response.status(), content_type, bytes_of(response))
            }
        };
        record.upstream_answered(status);
        streamed(status, content_type, stream).await
    }

    /// Sends a lazily constrained request to llama.cpp (`--constrain
    /// always`): its messages to `/apply-template`, then the prompt it
    /// makes with the grammar to `/completions`, whose stream the Chat
    /// Completions adapter reads (`choices[].text`).
    pub(crate) async fn post_lazy_completion(
        &self,
        lazy: LazyCompletion,
        client_key: Option<&str>,
        record: &mut RequestRecord,
    ) -> Result<AnswerStream, ApiError> {
        let mut headers = self.json_headers(client_key);
        // `/apply-template` is at the server's root, beside `/v1`.
        let root = self.base.strip_suffix("/v1").unwrap_or(&self.base);
        let bound = lazy.template.len().saturating_mul(2).max(MAX_PASSED_BYTES);
        let response = self
            .client
            .post(format!("{root}/apply-template"))
            .headers(headers.clone())
            .body(lazy.template)
            .send()
            .await
            .map_err(|e| unreachable(UpstreamError::Client(e)))?;
        let status = response.status();
        let answer = read_bounded(bytes_of(response), bound.saturating_add(1)).await;
        if !status.is_success() {
            return Err(ApiError::from_upstream(status, &answer));
        }
        let prompt = serde_json::from_slice::<serde_json::Value>(&answer)
            .ok()
            .and_then(|mut v| match v.get_mut("prompt")?.take() {
                serde_json::Value::String(prompt) => Some(prompt),
                _ => None,
            })
            .filter(|_| answer.len() <= bound)
            .ok_or_else(|| {
                ApiError::bad_gateway(
                    "the upstream's `/apply-template` answer has no `prompt` string",
                    "upstream_malformed",
                )
            })?;
        let mut request = lazy.request;
        request.insert("prompt".to_owned(), serde_json::Value::String(prompt));
        let body = written(&request)?;
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let response = self
            .client
            .post(format!("{}/completions", self.base))
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(|e| unreachable(UpstreamError::Client(e)))?;
        let status = response.status();
        let content_type = response.headers().get(http::header::CONTENT_TYPE).cloned();
        record.upstream_answered(status);
        streamed(status, content_type, bytes_of(response)).await
    }

    /// The chat URL for `model` on a wire that puts the model in the URL.
    fn model_endpoint(&self, model: &str) -> Result<String, ApiError> {
        endpoint(&self.profile.name, self.wire, &self.base, model, None)
            .map(|found| found.url)
            .map_err(|_| self.model_refused())
    }

    /// A model that cannot go in the chat URL.
    fn model_refused(&self) -> ApiError {
        ApiError::bad_request(
            format!(
                "a {} upstream takes the model in its URL: `model` must name one (no spaces, `/`, `?` or `#`)",
                self.wire.as_str()
            ),
            Some("model"),
        )
    }

    /// The URL of the model list on the wires whose list is not OpenAI's
    /// (Gemini, Ollama); `None` for the others.
    pub(crate) fn models_url(&self) -> Option<String> {
        models_url(self.wire, &self.base)
    }

    /// The profile's name (the `owned_by` of a translated model list).
    pub(crate) fn provider(&self) -> &str {
        &self.profile.name
    }

    /// `GET {base}/{path}`, passed through: a success as it came, a failure as
    /// an `ApiError` with the upstream's status.
    pub(crate) async fn get(
        &self,
        path: &str,
        client_key: Option<&str>,
    ) -> Result<Passed, ApiError> {
        // Anthropic's base URL is the host (`https://api.anthropic.com`), the
        // OpenAI SDKs' ends in the version (`…/v1`).
        let url = if self.wire == Wire::Anthropic && !self.base.ends_with("/v1") {
            format!("{}/v1/{path}", self.base)
        } else {
            format!("{}/{path}", self.base)
        };
        self.get_url(&url, client_key).await
    }

    /// `GET url` with the key, passed through as [`get`](Self::get) does.
    pub(crate) async fn get_url(
        &self,
        url: &str,
        client_key: Option<&str>,
    ) -> Result<Passed, ApiError> {
        let response = self
            .client
            .get(url)
            .headers(self.headers(client_key))
            .send()
            .await
            .map_err(|e| unreachable(UpstreamError::Client(e)))?;
        let status = response.status();
        let content_type = response.headers().get(http::header::CONTENT_TYPE).cloned();
        if !status.is_success() {
            let body = read_bounded(bytes_of(response), MAX_ERROR_BYTES).await;
            return Err(ApiError::from_upstream(status, &body));
        }
        let body = read_bounded(bytes_of(response), MAX_PASSED_BYTES + 1).await;
        if body.len() > MAX_PASSED_BYTES {
            return Err(ApiError::bad_gateway(
                format!("the upstream's answer is over {MAX_PASSED_BYTES} bytes"),
                "upstream_too_large",
            ));
        }
        Ok(Passed {
            status,
            content_type,
            body,
        })
    }

    /// [`headers`](Self::headers) of a request with a JSON body.
    fn json_headers(&self, client_key: Option<&str>) -> HeaderMap {
        let mut headers = self.headers(client_key);
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers
    }

    /// The headers of every request: the key's, and Anthropic's version.
    fn headers(&self, client_key: Option<&str>) -> HeaderMap {
        let mut headers = self.auth_headers(client_key);
        if self.wire == Wire::Anthropic {
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
        }
        headers
    }

    /// The key's headers in the profile's style, marked sensitive so that no
    /// log prints them.
    fn auth_headers(&self, client_key: Option<&str>) -> HeaderMap {
        let key = match self.key_source {
            UpstreamKey::Forward => client_key,
            _ => self.env_key.as_deref(),
        };
        let mut headers = HeaderMap::new();
        let Some(key) = key else { return headers };
        let (name, value) = key_header(&self.profile.name, self.wire, key);
        let Ok(mut value) = HeaderValue::from_str(&value) else {
            // A key that is no valid header value is not sent.
            tracing::warn!(
                header = name,
                "the upstream key is not a valid header value"
            );
            return headers;
        };
        value.set_sensitive(true);
        headers.insert(HeaderName::from_static(name), value);
        headers
    }
}

/// Whether `wire` puts the model in the chat URL (Gemini, Bedrock).
fn model_in_url(wire: Wire) -> bool {
    matches!(wire, Wire::Gemini | Wire::Bedrock)
}

/// The host and port of `url`, and its authority as written (the requests'
/// `Host`), when chat requests to it go through the worker's own pool: plain
/// `http`, and none of the system's `proxies` (`HTTP_PROXY`, `ALL_PROXY`, less
/// `NO_PROXY`, as reqwest reads them) covers it.
fn pooled_authority(
    url: &str,
    proxies: &hyper_util::client::proxy::matcher::Matcher,
) -> Option<(String, String)> {
    let uri: http::Uri = url.parse().ok()?;
    if uri.scheme() != Some(&http::uri::Scheme::HTTP) {
        return None;
    }
    if proxies.intercept(&uri).is_some() {
        return None;
    }
    let authority = uri.authority()?;
    // No user info: reqwest would send it as a Basic key.
    if authority.as_str().contains('@') {
        return None;
    }
    let address = format!(
        "{}:{}",
        authority.host(),
        authority.port_u16().unwrap_or(80)
    );
    Some((address, authority.as_str().to_owned()))
}

/// The path and query of `url` (origin form, for the pool).
fn path_of(url: &str) -> Option<PathAndQuery> {
    let uri: http::Uri = url.parse().ok()?;
    uri.path_and_query().cloned()
}

/// A reqwest answer's body as an [`AnswerStream`].
fn bytes_of(response: reqwest::Response) -> AnswerStream {
    response
        .bytes_stream()
        .map(|chunk| chunk.map_err(UpstreamError::Client))
        .boxed()
}

/// A request that got no answer: `502` (`504` when it timed out).
fn unreachable(e: UpstreamError) -> ApiError {
    let message = format!("cannot reach the upstream: {}", error_chain(&e));
    if e.is_timeout() {
        ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            message,
            super::error::UPSTREAM_ERROR,
            Some("upstream_timeout"),
        )
    } else {
        ApiError::bad_gateway(message, "upstream_unreachable")
    }
}

/// An error with its causes, `a: b: c`.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

/// An upstream's answer to a streamed request: its byte stream, or the error
/// it answered with.
async fn streamed(
    status: StatusCode,
    content_type: Option<HeaderValue>,
    stream: AnswerStream,
) -> Result<AnswerStream, ApiError> {
    tracing::debug!(%status, "upstream answered");
    if !status.is_success() {
        let body = read_bounded(stream, MAX_ERROR_BYTES).await;
        tracing::trace!(body = %String::from_utf8_lossy(&body), "upstream error body");
        return Err(ApiError::from_upstream(status, &body));
    }
    let json = content_type
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if json {
        // A server that ignored `stream: true`: its one answer is not a
        // stream this wire's adapter reads.
        return Err(ApiError::bad_gateway(
            "the upstream answered with one JSON object, not the event stream the proxy asked for (`stream: true`)",
            "upstream_not_streaming",
        ));
    }
    Ok(stream)
}

/// The first `max` bytes of an answer's body (fewer if it breaks off).
async fn read_bounded(mut stream: AnswerStream, max: usize) -> Bytes {
    let mut body = Vec::new();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = max - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= max {
            break;
        }
    }
    Bytes::from(body)
}

#[cfg(test)]
mod tests;
