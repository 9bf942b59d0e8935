//! The proxy's errors: [`ProxyError`], why it could not start; `ApiError`, an
//! answer in OpenAI's error shape (`{"error": {"message", "type", "param",
//! "code"}}`), the one an SDK reads.

use std::net::SocketAddr;

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// No provider profile has this name.
    #[error("unknown provider `{name}`")]
    UnknownProvider {
        /// The name given.
        name: String,
    },
    /// The profile's wire is one the proxy does not translate to (every
    /// wire of this build's profiles is served).
    #[error("provider `{provider}` speaks the `{wire}` wire, which the proxy does not forward to")]
    UnsupportedWire {
        /// The profile.
        provider: String,
        /// Its wire.
        wire: &'static str,
    },
    /// The upstream URL cannot be used.
    #[error("invalid upstream URL `{url}`: {reason}")]
    InvalidUpstream {
        /// The URL given, any user name and password in it replaced by `***`.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The bearer token is empty or only whitespace: it is refused, not
    /// taken for "no token" (an unset variable in `--token "$TOKEN"`).
    #[error("the bearer token is empty or blank: give a real token, or none")]
    EmptyToken,
    /// A non-loopback address was given without allowing remote access.
    #[error(
        "refusing to listen on non-loopback address {0}: pass --allow-remote and a --token to expose the proxy to the network"
    )]
    RemoteBindRefused(SocketAddr),
    /// A non-loopback address was allowed but no token was set.
    #[error("listening on non-loopback address {0} needs a bearer token (--token)")]
    RemoteWithoutToken(SocketAddr),
    /// Both a bearer token and the client's own key would be read from
    /// `Authorization`.
    #[error(
        "--forward-key and --token both read the client's `Authorization` header: use one of them"
    )]
    ForwardKeyWithToken,
    /// The HTTP client for the upstream could not be built.
    #[error("cannot build the upstream HTTP client: {0}")]
    Client(String),
    /// Binding failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// An answer in OpenAI's error shape.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    /// The `error` object.
    pub(crate) error: Value,
}

/// The `type` of errors the client caused.
pub(crate) const INVALID_REQUEST: &str = "invalid_request_error";
/// The `type` of errors the upstream caused.
pub(crate) const UPSTREAM_ERROR: &str = "upstream_error";
/// The `type` of errors of the proxy's own (too many open connections).
pub(crate) const SERVER_ERROR: &str = "server_error";

impl ApiError {
    /// An error of `status` with this message, type and code.
    pub(crate) fn new(
        status: StatusCode,
        message: impl Into<String>,
        kind: &str,
        code: Option<&str>,
    ) -> Self {
        Self {
            status,
            error: error_object(&message.into(), kind, code, None),
        }
    }

    /// `400`: the request cannot be forwarded; `param` names the field.
    pub(crate) fn bad_request(message: impl Into<String>, param: Option<&str>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            error: error_object(&message.into(), INVALID_REQUEST, None, param),
        }
    }

    /// `502`: the upstream could not be reached or did not answer usably.
    pub(crate) fn bad_gateway(message: impl Into<String>, code: &str) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, message, UPSTREAM_ERROR, Some(code))
    }

    /// The upstream answered `status` with `body`: its own `error` object when
    /// it sent one in OpenAI's shape, else one made of its text.
    pub(crate) fn from_upstream(status: StatusCode, body: &[u8]) -> Self {
        let parsed: Option<Value> = serde_json::from_slice(body).ok();
        let aws_message = parsed
            .as_ref()
            .and_then(|v| v.get("message"))
            .and_then(Value::as_str);
        let error = match parsed.as_ref().and_then(|v| v.get("error")) {
            Some(Value::Object(object)) if object.get("message").is_some_and(Value::is_string) => {
                let mut object = object.clone();
                // Gemini's `{"code": 429, "message", "status"}` has no `type`.
                object
                    .entry("type")
                    .or_insert_with(|| Value::String(UPSTREAM_ERROR.to_owned()));
                Value::Object(object)
            }
            // Ollama and others: `{"error": "text"}`.
            Some(Value::String(message)) => {
                error_object(message, UPSTREAM_ERROR, Some(status.as_str()), None)
            }
            // Bedrock (AWS): `{"message": "text"}`.
            None if aws_message.is_some() => error_object(
                aws_message.unwrap_or_default(),
                UPSTREAM_ERROR,
                Some(status.as_str()),
                None,
            ),
            _ => {
                let text = String::from_utf8_lossy(body);
                let text = text.trim();
                let message = if text.is_empty() {
                    format!("the upstream answered {status}")
                } else {
                    format!(
                        "the upstream answered {status}: {}",
                        crate::core::echo(text)
                    )
                };
                error_object(&message, UPSTREAM_ERROR, Some(status.as_str()), None)
            }
        };
        Self { status, error }
    }

    /// What the request's log line calls this error: its `code` (a string or
    /// a number, as an upstream may send), else its `type`.
    pub(crate) fn outcome(&self) -> String {
        let code = match self.error.get("code") {
            Some(Value::String(code)) => Some(code.clone()),
            Some(Value::Number(code)) => Some(code.to_string()),
            _ => None,
        };
        let text = code
            .or_else(|| {
                self.error
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "error".to_owned());
        crate::core::echo_display(&crate::core::echo(&text))
    }

    /// The whole answer's body: `{"error": {...}}`.
    pub(crate) fn body(&self) -> Value {
        json!({ "error": self.error })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body().to_string();
        let mut response = (
            self.status,
            [(http::header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                http::header::WWW_AUTHENTICATE,
                http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}

/// `{"message", "type", "param", "code"}`.
pub(crate) fn error_object(
    message: &str,
    kind: &str,
    code: Option<&str>,
    param: Option<&str>,
) -> Value {
    json!({ "message": message, "type": kind, "param": param, "code": code })
}
