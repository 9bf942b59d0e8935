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
/// `{base}/v1beta/models/{model}:streamGenerateContent?alt=sse`. A base that
/// already ends in the version segment (`…/v1` for Anthropic, `…/v1beta` or
/// `…/v1` for Gemini, as the profiles' base URLs do) is not given a second one,
/// and a Gemini base ending in `/models` (Vertex AI) takes the model directly.
///
/// Auth headers: `x-api-key` plus `anthropic-version: 2023-06-01` for Anthropic
/// (the version header is always sent), `x-goog-api-key` for Gemini, `api-key`
/// for the `azure-openai` profile, `Authorization: Bearer` for everything else.
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
            let method = format!("{model}:streamGenerateContent?alt=sse");
            if ends_with_segment(base, &["models"]) {
                format!("{base}/{method}")
            } else if ends_with_segment(base, &["v1", "v1beta", "v1alpha"]) {
                format!("{base}/models/{method}")
            } else {
                format!("{base}/v1beta/models/{method}")
            }
        }
        other => {
            return Err(ChatError::UnsupportedWire {
                wire: other.as_str(),
                reason: "its requests need AWS SigV4 signing, which toolrouter does not do",
            });
        }
    };
    if let Some(key) = api_key {
        match wire {
            Wire::Anthropic => headers.push(("x-api-key", key.to_owned())),
            Wire::Gemini => headers.push(("x-goog-api-key", key.to_owned())),
            _ if profile == "azure-openai" => headers.push(("api-key", key.to_owned())),
            _ => headers.push(("authorization", format!("Bearer {key}"))),
        }
    }
    Ok(Endpoint { url, headers })
}

/// Whether the last path segment of `base` is one of `names`.
fn ends_with_segment(base: &str, names: &[&str]) -> bool {
    base.rsplit_once('/')
        .is_some_and(|(head, last)| !head.ends_with('/') && names.contains(&last))
}
