//! `Upstream`: the model server behind the proxy: its URLs, its key, and the
//! HTTP client that reaches it. An answer that is not a success becomes an
//! `ApiError` carrying the upstream's status.

use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use toolrouter_providers::{ProviderProfile, Wire};

use super::error::{ApiError, ProxyError};
use super::options::{ProxyOptions, UpstreamKey};
use super::record::RequestRecord;
use crate::chat::endpoint;
use crate::chat::endpoint::{key_header, models_url};

/// The Messages API version sent to an Anthropic upstream (the one the
/// router's Anthropic adapter reads).
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The most bytes of an upstream's error answer read.
const MAX_ERROR_BYTES: usize = 64 * 1024;

/// The most bytes of a passed-through answer (`/v1/models`).
const MAX_PASSED_BYTES: usize = 4 * 1024 * 1024;

/// The upstream of one proxy.
pub(crate) struct Upstream {
    client: reqwest::Client,
    profile: &'static ProviderProfile,
    wire: Wire,
    /// The base URL, without a trailing `/`.
    base: String,
    /// The chat URL, parsed once (reqwest would parse a string per request);
    /// `None` for the wires that put the model in it (Gemini, Bedrock), whose
    /// URL is made per request.
    chat_url: Option<reqwest::Url>,
    key_source: UpstreamKey,
    /// The profile's key, read once.
    env_key: Option<String>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("profile", &self.profile.name)
            .field("chat_url", &self.chat_url)
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
        let chat = endpoint(&profile.name, wire, &base, model, None).map_err(|e| {
            ProxyError::InvalidUpstream {
                url: options.upstream.clone(),
                reason: e.to_string(),
            }
        })?;
        let chat_url =
            match per_model {
                true => None,
                false => Some(reqwest::Url::parse(&chat.url).map_err(|e| {
                    ProxyError::InvalidUpstream {
                        url: options.upstream.clone(),
                        reason: e.to_string(),
                    }
                })?),
            };
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
        Ok(Self {
            client,
            profile,
            wire,
            base,
            chat_url,
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
    ) -> Result<futures::stream::BoxStream<'static, Result<Bytes, reqwest::Error>>, ApiError> {
        let url = match &self.chat_url {
            Some(url) => url.clone(),
            None => self.model_url(model)?,
        };
        let mut headers = self.headers(client_key);
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let accept = match self.wire {
            Wire::Ollama => "application/x-ndjson",
            Wire::Bedrock => "application/vnd.amazon.eventstream",
            _ => "text/event-stream",
        };
        headers.insert(http::header::ACCEPT, HeaderValue::from_static(accept));
        let request = self.client.post(url).headers(headers).body(body);
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        record.upstream_answered(status);
        tracing::debug!(%status, "upstream answered");
        if !status.is_success() {
            let body = read_bounded(response, MAX_ERROR_BYTES).await;
            tracing::trace!(body = %String::from_utf8_lossy(&body), "upstream error body");
            return Err(ApiError::from_upstream(status, &body));
        }
        let json = response
            .headers()
            .get(http::header::CONTENT_TYPE)
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
        Ok(response.bytes_stream().boxed())
    }

    /// The chat URL for `model` on a wire that puts the model in the URL.
    fn model_url(&self, model: &str) -> Result<reqwest::Url, ApiError> {
        endpoint(&self.profile.name, self.wire, &self.base, model, None)
            .ok()
            .and_then(|found| reqwest::Url::parse(&found.url).ok())
            .ok_or_else(|| {
                ApiError::bad_request(
                    format!(
                        "a {} upstream takes the model in its URL: `model` must name one (no spaces, `/`, `?` or `#`)",
                        self.wire.as_str()
                    ),
                    Some("model"),
                )
            })
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
            .map_err(unreachable)?;
        let status = response.status();
        let content_type = response.headers().get(http::header::CONTENT_TYPE).cloned();
        if !status.is_success() {
            let body = read_bounded(response, MAX_ERROR_BYTES).await;
            return Err(ApiError::from_upstream(status, &body));
        }
        let body = read_bounded(response, MAX_PASSED_BYTES + 1).await;
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

/// A request that got no answer: `502` (`504` when it timed out).
fn unreachable(e: reqwest::Error) -> ApiError {
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

/// The first `max` bytes of an answer's body (fewer if it breaks off).
async fn read_bounded(response: reqwest::Response, max: usize) -> Bytes {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = max - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= max {
            break;
        }
    }
    Bytes::from(body)
}
