//! A `tools/call` request in the plain shape clients send, read straight into
//! rmcp's types: the direct paths' first parse.
//!
//! rmcp's own parse of a message (`JsonRpcMessage`) buffers the whole message
//! in serde's `Content` twice (a shape check, then the message through
//! `#[serde(flatten)]`), and reads `params` through another flattened
//! wrapper that moves `_meta` into the request's extensions. For a small call
//! that is most of the parse (measured: 6 % of the HTTP server's CPU per
//! call). This parse reads the one shape that needs none of it: an object with
//! exactly `jsonrpc`, `id`, `method` and `params`, where `params` has `name`
//! and optionally `arguments` and `_meta`, each key once and unescaped.
//! Anything else (another key, a repeated key, an array where an object
//! belongs, `inputResponses` or `requestState`) is not read here:
//! [`read_message`] falls back to rmcp's parse, which decides. What this parse
//! accepts, it builds as rmcp does: rmcp's own types read `jsonrpc`, `id` and
//! `method`, and `_meta` goes into the request's extensions as a
//! `RequestMetaObject` (so `params.meta` stays empty). `tests` checks every
//! accepted body against rmcp's parse.

use std::fmt;

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, JsonObject, JsonRpcMessage,
    JsonRpcRequest, JsonRpcVersion2_0, RequestId, RequestMetaObject,
};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer as _};

/// `body` as a message of the direct paths: a plain `tools/call` read here,
/// else rmcp's own message parse with requests narrowed to `tools/call`
/// (`Resp` and `Noti` say what else the caller reads); `None` when neither
/// parses, for rmcp's service.
pub(super) fn read_message<'de, Resp, Noti>(
    body: &'de [u8],
) -> Option<JsonRpcMessage<CallToolRequest, Resp, Noti>>
where
    JsonRpcMessage<CallToolRequest, Resp, Noti>: Deserialize<'de>,
{
    fast_call(body)
        .map(JsonRpcMessage::Request)
        .or_else(|| serde_json::from_slice(body).ok())
}

/// `body` as a plain `tools/call` request, or `None` for rmcp's parse.
fn fast_call(body: &[u8]) -> Option<JsonRpcRequest<CallToolRequest>> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let request = de.deserialize_map(MessageVisitor).ok()?;
    de.end().ok()?;
    Some(request)
}

/// Stops the parse: the caller hands the body to rmcp's parse.
fn not_plain<E: de::Error>() -> E {
    E::custom("not a plain tools/call")
}

/// Stores `value` in `slot` unless the key came before.
fn once<T, E: de::Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    if slot.replace(value).is_some() {
        return Err(not_plain());
    }
    Ok(())
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = JsonRpcRequest<CallToolRequest>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC tools/call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut jsonrpc, mut id, mut method, mut params) = (None, None, None, None);
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "jsonrpc" => once(&mut jsonrpc, map.next_value::<JsonRpcVersion2_0>()?)?,
                "id" => once(&mut id, map.next_value::<RequestId>()?)?,
                "method" => once(&mut method, map.next_value::<CallToolRequestMethod>()?)?,
                "params" => once(&mut params, map.next_value_seed(ParamsSeed)?)?,
                _ => return Err(not_plain()),
            }
        }
        let (Some(jsonrpc), Some(id), Some(_), Some(params)) = (jsonrpc, id, method, params) else {
            return Err(not_plain());
        };
        Ok(JsonRpcRequest {
            jsonrpc,
            id,
            request: params,
        })
    }
}

/// Reads `params` (an object, never an array) into the request it belongs to.
struct ParamsSeed;

impl<'de> de::DeserializeSeed<'de> for ParamsSeed {
    type Value = CallToolRequest;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed {
    type Value = CallToolRequest;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tools/call params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut name, mut arguments, mut meta) = (None, None, None);
        while let Some(key) = map.next_key::<&str>()? {
            match key {
                "name" => once(&mut name, map.next_value::<String>()?)?,
                "arguments" => once(&mut arguments, map.next_value::<Option<JsonObject>>()?)?,
                "_meta" => once(&mut meta, map.next_value::<Option<JsonObject>>()?)?,
                _ => return Err(not_plain()),
            }
        }
        let Some(name) = name else {
            return Err(not_plain());
        };
        let mut params = CallToolRequestParams::new(name);
        params.arguments = arguments.flatten();
        let mut request = CallToolRequest::new(params);
        if let Some(meta) = meta.flatten() {
            request.extensions.insert(RequestMetaObject::from(meta));
        }
        Ok(request)
    }
}

/// A `tools/call` request parsed with the request type narrowed to
/// `CallToolRequest` (both direct paths parse that way, skipping the request
/// types `ClientRequest` tries first), as the `ClientRequest` rmcp's handler
/// takes.
pub(super) fn client_request(
    request: rmcp::model::JsonRpcRequest<rmcp::model::CallToolRequest>,
) -> rmcp::model::JsonRpcRequest<rmcp::model::ClientRequest> {
    rmcp::model::JsonRpcRequest {
        jsonrpc: request.jsonrpc,
        id: request.id,
        request: rmcp::model::ClientRequest::CallToolRequest(request.request),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
