//! `GET /v1/models` in front of the wires whose model list is not OpenAI's:
//! Gemini's `GET …/models` and Ollama's `GET /api/tags` are translated into
//! OpenAI's list (`{"object": "list", "data": [{"id", "object": "model",
//! "created": 0, "owned_by"}]}`), one model into one such entry. Bedrock lists
//! its models on another API (the control plane, signed): it is answered
//! `404`.

use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::{Value, json};
use toolrouter_providers::Wire;

use super::error::{ApiError, INVALID_REQUEST};
use super::upstream::Upstream;

/// The most models of a Gemini list page (its own maximum).
const GEMINI_PAGE_SIZE: u32 = 1000;

/// The answer to `GET /v1/{path}` (`models` or `models/{id}`, `id` as the
/// client wrote it) on `upstream`, whose list is at `list_url`.
pub(crate) async fn translated(
    upstream: &Upstream,
    wire: Wire,
    list_url: &str,
    path: &str,
    client_key: Option<&str>,
) -> Response {
    let id = path.strip_prefix("models/").filter(|id| !id.is_empty());
    let owner = upstream.provider();
    let answer = match (wire, id) {
        (Wire::Gemini, None) => {
            let url = format!("{list_url}?pageSize={GEMINI_PAGE_SIZE}");
            fetch(upstream, &url, client_key)
                .await
                .map(|list| list_of(gemini_ids(&list), owner))
        }
        (Wire::Gemini, Some(id)) => {
            let id = id.strip_prefix("models%2F").unwrap_or(id);
            let url = format!("{list_url}/{id}");
            fetch(upstream, &url, client_key).await.and_then(|model| {
                let id = model
                    .get("name")
                    .and_then(Value::as_str)
                    .map(|name| name.strip_prefix("models/").unwrap_or(name))
                    .ok_or_else(|| not_found(id))?;
                Ok(entry(id, owner))
            })
        }
        (_, id) => fetch(upstream, list_url, client_key)
            .await
            .and_then(|tags| {
                let ids = ollama_ids(&tags);
                match id {
                    None => Ok(list_of(ids, owner)),
                    Some(id) => {
                        let wanted = percent_decoded(id);
                        ids.into_iter()
                            .find(|name| *name == wanted)
                            .map(|name| entry(name, owner))
                            .ok_or_else(|| not_found(&wanted))
                    }
                }
            }),
    };
    match answer {
        Ok(body) => (
            [(http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response(),
        Err(error) => error.into_response(),
    }
}

/// The `404` of `/v1/models` in front of Bedrock.
pub(crate) fn bedrock_has_no_list() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "a Bedrock upstream has no model list through the proxy (Bedrock lists models on its signed control-plane API): name a model id or inference profile, as `aws bedrock list-foundation-models` shows them",
        INVALID_REQUEST,
        Some("model_list_unavailable"),
    )
    .into_response()
}

/// `GET url`, its body as JSON.
async fn fetch(
    upstream: &Upstream,
    url: &str,
    client_key: Option<&str>,
) -> Result<Value, ApiError> {
    let passed = upstream.get_url(url, client_key).await?;
    serde_json::from_slice(&passed.body).map_err(|e| {
        ApiError::bad_gateway(
            format!("the upstream's model list is not JSON: {e}"),
            "upstream_bad_answer",
        )
    })
}

/// Gemini's model names without their `models/` prefix.
fn gemini_ids(list: &Value) -> Vec<&str> {
    list.get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|model| model.get("name")?.as_str())
        .map(|name| name.strip_prefix("models/").unwrap_or(name))
        .collect()
}

/// Ollama's model names (`qwen3:8b`).
fn ollama_ids(tags: &Value) -> Vec<&str> {
    tags.get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|model| model.get("name").or_else(|| model.get("model"))?.as_str())
        .collect()
}

fn list_of(ids: Vec<&str>, owner: &str) -> Value {
    let data: Vec<Value> = ids.into_iter().map(|id| entry(id, owner)).collect();
    json!({"object": "list", "data": data})
}

fn entry(id: &str, owner: &str) -> Value {
    json!({"id": id, "object": "model", "created": 0, "owned_by": owner})
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("the upstream has no model `{}`", crate::core::echo(id)),
        INVALID_REQUEST,
        Some("model_not_found"),
    )
}

/// `%XX` escapes decoded (a malformed one is kept as it is).
fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::{gemini_ids, list_of, ollama_ids, percent_decoded};

    #[test]
    fn lists_translate_into_openais_shape() {
        let gemini = json!({"models": [{"name": "models/gemini-2.5-flash"}, {"name": "x"}]});
        assert_eq!(
            list_of(gemini_ids(&gemini), "gemini"),
            json!({"object": "list", "data": [
                {"id": "gemini-2.5-flash", "object": "model", "created": 0, "owned_by": "gemini"},
                {"id": "x", "object": "model", "created": 0, "owned_by": "gemini"}]})
        );
        let tags = json!({"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]});
        assert_eq!(ollama_ids(&tags), vec!["qwen3:8b"]);
        assert_eq!(ollama_ids(&json!({"oops": 1})), Vec::<&str>::new());
        assert_eq!(percent_decoded("qwen3%3A8b%"), "qwen3:8b%");
    }
}
