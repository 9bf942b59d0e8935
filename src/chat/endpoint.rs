//! `endpoint`: the URL and headers of a wire's streaming endpoint.

use toolrouter_providers::Wire;

use super::error::ChatError;

/// Where a turn's request goes and the headers it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The full URL.
    pub url: String,
    /// Headers as (lowercase name, value): `content-type` and the provider's
    /// authentication style.
    pub headers: Vec<(&'static str, String)>,
}

/// The streaming endpoint of `wire` under `base_url` for `model`, authenticated
/// with `api_key` when there is one (no auth header otherwise, fine for local
/// servers).
///
/// URLs: OpenAI Chat `{base}/chat/completions`, Responses `{base}/responses`,
/// Ollama `{base}/api/chat`, Anthropic `{base}/v1/messages`, Gemini
/// `{base}/v1beta/models/{model}:streamGenerateContent?alt=sse`, Bedrock
/// `{base}/model/{model}/converse-stream` (ConverseStream; the model id
/// percent-encoded, so that an ARN stays one path segment). A base that
/// already ends in the version segment (`…/v1` for Anthropic, `…/v1beta` or
/// `…/v1` for Gemini, as the profiles' base URLs do) is not given a second one,
/// and a Gemini base ending in `/models` (Vertex AI) takes the model directly.
///
/// Auth headers: `x-api-key` plus `anthropic-version: 2023-06-01` for Anthropic
/// (the version header is always sent), `x-goog-api-key` for Gemini, `api-key`
/// for the `azure-openai` profile, `Authorization: Bearer` for everything else
/// (for Bedrock that is a Bedrock API key: SigV4 signing is not done).
pub fn endpoint(
    profile: &str,
    wire: Wire,
    base_url: &str,
    model: &str,
    api_key: Option<&str>,
) -> Result<Endpoint, ChatError> {
    let base = base_url.trim_end_matches('/');
    if base.contains('{') {
        return Err(ChatError::BaseUrlPlaceholder {
            url: base_url.to_owned(),
        });
    }
    let scheme_ok = ["http://", "https://"].iter().any(|s| {
        base.get(..s.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(s))
            && base.len() > s.len()
    });
    if !scheme_ok {
        return Err(ChatError::InvalidBaseUrl {
            url: base_url.to_owned(),
        });
    }
    let mut headers = vec![("content-type", "application/json".to_owned())];
    let url = match wire {
        Wire::OpenAiChat => format!("{base}/chat/completions"),
        Wire::OpenAiResponses => format!("{base}/responses"),
        Wire::Ollama => format!("{base}/api/chat"),
        Wire::Anthropic => {
            headers.push(("anthropic-version", "2023-06-01".to_owned()));
            if ends_with_segment(base, &["v1"]) {
                format!("{base}/messages")
            } else {
                format!("{base}/v1/messages")
            }
        }
        Wire::Gemini => {
            let model = model.strip_prefix("models/").unwrap_or(model);
            let bad = |c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '%' | '&');
            if model.is_empty() || model.contains(bad) {
                return Err(ChatError::InvalidModel {
                    model: model.to_owned(),
                });
            }
            format!(
                "{}/{model}:streamGenerateContent?alt=sse",
                gemini_models_url(base)
            )
        }
        Wire::Bedrock => {
            if model.trim().is_empty() || model.chars().any(char::is_control) {
                return Err(ChatError::InvalidModel {
                    model: model.to_owned(),
                });
            }
            format!("{base}/model/{}/converse-stream", path_segment(model))
        }
        other => {
            return Err(ChatError::UnsupportedWire {
                wire: other.as_str(),
                reason: "it has no streaming endpoint here",
            });
        }
    };
    if let Some(key) = api_key {
        headers.push(key_header(profile, wire, key));
    }
    Ok(Endpoint { url, headers })
}

/// The header that carries `key` for `profile` on `wire` (see [`endpoint`]).
pub(crate) fn key_header(profile: &str, wire: Wire, key: &str) -> (&'static str, String) {
    match wire {
        Wire::Anthropic => ("x-api-key", key.to_owned()),
        Wire::Gemini => ("x-goog-api-key", key.to_owned()),
        _ if profile == "azure-openai" => ("api-key", key.to_owned()),
        _ => ("authorization", format!("Bearer {key}")),
    }
}

/// The URL that lists a wire's models, for the wires whose list is not
/// OpenAI's `{base}/models`: Gemini's `…/models` (under the same version
/// rules as [`endpoint`]) and Ollama's `{base}/api/tags`. `None` for the
/// others. `base` has no trailing `/`.
pub(crate) fn models_url(wire: Wire, base: &str) -> Option<String> {
    match wire {
        Wire::Gemini => Some(gemini_models_url(base)),
        Wire::Ollama => Some(format!("{base}/api/tags")),
        _ => None,
    }
}

/// `…/models` of a Gemini base: itself when it ends in `/models` (Vertex AI),
/// below its version segment when it has one, else below `/v1beta`.
fn gemini_models_url(base: &str) -> String {
    if ends_with_segment(base, &["models"]) {
        base.to_owned()
    } else if ends_with_segment(base, &["v1", "v1beta", "v1alpha"]) {
        format!("{base}/models")
    } else {
        format!("{base}/v1beta/models")
    }
}

/// What [`path_segment`] escapes: all but unreserved characters and `:`.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b':');

/// `text` percent-encoded as one path segment (unreserved characters and `:`
/// stay as they are).
fn path_segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, SEGMENT).to_string()
}

/// Whether the last path segment of `base` is one of `names`.
fn ends_with_segment(base: &str, names: &[&str]) -> bool {
    base.rsplit_once('/')
        .is_some_and(|(head, last)| !head.ends_with('/') && names.contains(&last))
}
