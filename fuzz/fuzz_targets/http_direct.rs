//! Fuzz target: the Streamable HTTP server's request path (hyper's HTTP/1 under
//! the connection clock of `http_conn`, the bearer and body middlewares of
//! `http.rs`, the direct path of `http_direct` in stateless mode, rmcp's service
//! behind them) over one in-memory connection whose raw bytes are the input:
//! request lines, headers, bodies, pipelined requests.
//!
//! The first byte: bit 0 turns sessions on (else stateless, where a plain
//! `tools/call` takes the direct path), bit 1 JSON responses, bit 2 a bearer
//! token (`Authorization: Bearer fuzz`); bits 3-7 seed the sizes of the pieces
//! the client writes (1 to 64 bytes). The client then keeps the connection open
//! and reads until the server closes it, as a real one would.
//!
//! Checked, on a current-thread runtime with a paused clock (the server's
//! header, body and idle timeouts pass without waiting):
//! - no panic, in the server or any task it spawns;
//! - the server closes the connection within 10 minutes of its clock, and
//!   leaves no task running once its sessions are shut down;
//! - the output is a sequence of well-formed HTTP/1.x responses (status line,
//!   headers, a body framed by `Content-Length`, chunks or the close);
//! - the requests the input holds whole (read the way hyper reads them, with
//!   httparse; the check stops at the first one whose framing it cannot be sure
//!   of) are answered in order, one response each. Fewer responses are fine
//!   only after a response that may end the connection: hyper's own error
//!   answer, `Connection: close`, or an answer given without reading a body
//!   (hyper then closes unless the body is already drained);
//! - a JSON response body is JSON: a JSON-RPC response for a success, a
//!   JSON-RPC error (code and message) for an HTTP error; every SSE event's
//!   data is a JSON-RPC message;
//! - a POST with a JSON `Content-Type` never gets rmcp's plain-text 415; a 400
//!   with a JSON body answers a body that is not JSON with -32700 (id null),
//!   and a JSON body that is not a readable message with -32600 and its id.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::runtime::Runtime;
use toolrouter::http_fuzzing::Connections;
use toolrouter::rmcp::model::{CallToolResult, ContentBlock, ServerJsonRpcMessage, Tool};
use toolrouter::{HttpOptions, Hub, JsonObject, ServerOptions};

fn runtime() -> &'static Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("runtime")
    })
}

/// A hub with one tool, `echo` (its `text` back).
fn hub() -> Hub {
    static HUB: OnceLock<Hub> = OnceLock::new();
    HUB.get_or_init(|| {
        let hub = Hub::new();
        let Value::Object(schema) = json!({ "type": "object" }) else {
            unreachable!()
        };
        hub.registry()
            .register_fn(
                Tool::new("echo", "fuzz tool", std::sync::Arc::new(schema)),
                |args: JsonObject, _| async move {
                    let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                    Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
                },
            )
            .expect("echo");
        hub
    })
    .clone()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&flags, input)) = data.split_first() else {
        return;
    };
    let bind = "127.0.0.1:0".parse().expect("address");
    let mut options = HttpOptions::new(bind)
        .with_sessions(flags & 1 != 0)
        .with_json_response(flags & 2 != 0);
    if flags & 4 != 0 {
        options = options.with_bearer_token("fuzz");
    }
    let output = runtime().block_on(async {
        let connections = Connections::new(hub(), ServerOptions::default(), &options);
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let mut state = u32::from(flags >> 3).wrapping_mul(0x9E37_79B9) | 1;
        let talk = async {
            let mut at = 0;
            while at < input.len() {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                let end = (at + (state % 64) as usize + 1).min(input.len());
                if client.write_all(&input[at..end]).await.is_err() {
                    break;
                }
                at = end;
                tokio::task::yield_now().await;
            }
            // The client keeps its side open and reads until the server closes.
            let mut output = Vec::new();
            let _ = client.read_to_end(&mut output).await;
            output
        };
        let (output, ()) = tokio::time::timeout(Duration::from_secs(600), async {
            tokio::join!(talk, connections.serve(server))
        })
        .await
        .expect("the server closes the connection in bounded time");
        drop(connections);
        let metrics = tokio::runtime::Handle::current().metrics();
        for _ in 0..256 {
            if metrics.num_alive_tasks() == 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(metrics.num_alive_tasks(), 0, "tasks left running");
        output
    });
    check(input, &output);
});

/// A request the input holds whole.
struct Req {
    method: String,
    /// `Content-Type` names JSON (as the body middleware decides).
    json: bool,
    body: Vec<u8>,
    /// hyper answers it itself (400) and closes.
    bad_uri: bool,
    /// The connection ends after it (`Connection: close`, HTTP/1.0).
    closes: bool,
}

/// The requests at the start of `input` that hyper surely reads as such, in
/// order; stops at the first one it might read otherwise or that is cut off.
fn requests(mut input: &[u8]) -> Vec<Req> {
    let mut out = Vec::new();
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 100];
        let mut req = httparse::Request::new(&mut headers);
        let Ok(httparse::Status::Complete(head)) = req.parse(input) else {
            return out;
        };
        let method = req.method.unwrap_or_default().to_owned();
        let path = req.path.unwrap_or_default();
        let bad_uri = http::Uri::try_from(path).is_err() || path.len() > 65534;
        let mut length: Option<usize> = None;
        let mut json = false;
        let mut closes = req.version != Some(1);
        for header in req.headers.iter() {
            let name = header.name.to_ascii_lowercase();
            let value = header.value;
            match name.as_str() {
                "content-length" => {
                    let Some(n) = std::str::from_utf8(value)
                        .ok()
                        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                        .and_then(|v| v.parse::<usize>().ok())
                    else {
                        return out;
                    };
                    if length.is_some_and(|l| l != n) {
                        return out;
                    }
                    length = Some(n);
                }
                // Framings and modes this check does not model.
                "transfer-encoding" | "expect" | "upgrade" => return out,
                "connection" => {
                    let v = String::from_utf8_lossy(value).to_ascii_lowercase();
                    if v.split(',').any(|t| t.trim() == "close") {
                        closes = true;
                    } else if v.split(',').any(|t| t.trim() == "keep-alive") {
                        return out;
                    }
                }
                "content-type" => {
                    if let Ok(v) = std::str::from_utf8(value) {
                        let essence = v.split_once(';').map_or(v, |(e, _)| e);
                        json = essence.trim().eq_ignore_ascii_case("application/json");
                    }
                }
                _ => {}
            }
        }
        if method == "CONNECT" || method == "HEAD" {
            return out;
        }
        let length = length.unwrap_or(0);
        let Some(body) = input.get(head..head + length) else {
            return out;
        };
        out.push(Req {
            method,
            json,
            body: body.to_vec(),
            bad_uri,
            closes,
        });
        if bad_uri || closes {
            return out;
        }
        input = &input[head + length..];
    }
}

/// One response.
struct Resp {
    status: u16,
    content_type: String,
    closes: bool,
    body: Vec<u8>,
}

/// The response at the start of `output` and its length, or why not.
fn response(output: &[u8]) -> Result<(Resp, usize), String> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut resp = httparse::Response::new(&mut headers);
    let head = match resp.parse(output) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Err("a cut-off head".into()),
        Err(e) => return Err(format!("a bad head: {e}")),
    };
    // hyper answers an HTTP/1.0 request in HTTP/1.0.
    if resp.version.is_none() {
        return Err("no version".into());
    }
    let status = resp.code.unwrap_or(0);
    let mut length = None;
    let mut chunked = false;
    let mut content_type = String::new();
    let mut closes = false;
    for header in resp.headers.iter() {
        let value = String::from_utf8_lossy(header.value).to_ascii_lowercase();
        match header.name.to_ascii_lowercase().as_str() {
            "content-length" => {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|e| format!("length: {e}"))?,
                )
            }
            "transfer-encoding" => chunked = value.trim() == "chunked",
            "content-type" => content_type = value,
            "connection" => closes = value.contains("close"),
            _ => {}
        }
    }
    let rest = &output[head..];
    let (body, used) = if (100..200).contains(&status) || status == 204 || status == 304 {
        (Vec::new(), 0)
    } else if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        let body = rest.get(..n).ok_or("a cut-off body")?;
        (body.to_vec(), n)
    } else {
        closes = true;
        (rest.to_vec(), rest.len())
    };
    Ok((
        Resp {
            status,
            content_type,
            closes,
            body,
        },
        head + used,
    ))
}

/// A chunked body and the bytes it took.
fn dechunk(mut rest: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let start = rest.len();
    let mut body = Vec::new();
    loop {
        let line = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a cut-off chunk size")?;
        let size = std::str::from_utf8(&rest[..line]).map_err(|e| e.to_string())?;
        let size = size.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|e| format!("chunk size: {e}"))?;
        rest = &rest[line + 2..];
        if size == 0 {
            // No trailers from this server.
            if !rest.starts_with(b"\r\n") {
                return Err("no end after the last chunk".into());
            }
            rest = &rest[2..];
            return Ok((body, start - rest.len()));
        }
        let chunk = rest.get(..size).ok_or("a cut-off chunk")?;
        body.extend_from_slice(chunk);
        rest = &rest[size..];
        if !rest.starts_with(b"\r\n") {
            return Err("no end of a chunk".into());
        }
        rest = &rest[2..];
    }
}

/// A JSON-RPC error object, answered for an HTTP error.
fn assert_error(message: &Value, text: &str) {
    assert_eq!(message["jsonrpc"], "2.0", "{text}");
    assert!(message["error"]["code"].is_i64(), "an error code: {text}");
    assert!(
        message["error"]["message"].is_string(),
        "an error message: {text}"
    );
}

fn assert_message(message: &Value, text: &str) {
    serde_json::from_value::<ServerJsonRpcMessage>(message.clone())
        .unwrap_or_else(|e| panic!("not a JSON-RPC message ({e}): {text}"));
}

fn check(input: &[u8], output: &[u8]) {
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        eprintln!("input:\n{}", String::from_utf8_lossy(input));
        eprintln!("output:\n{}", String::from_utf8_lossy(output));
    }
    let requests = requests(input);
    let mut at = 0;
    let mut answered = 0;
    let mut last_closes = false;
    while at < output.len() {
        let (resp, used) = match response(&output[at..]) {
            Ok(parsed) => parsed,
            Err(why) => panic!(
                "response {answered}: {why}: {:?}",
                String::from_utf8_lossy(&output[at..])
            ),
        };
        at += used;
        if (100..200).contains(&resp.status) {
            continue;
        }
        let text = String::from_utf8_lossy(&resp.body);
        if resp.content_type.starts_with("application/json") {
            let body: Value = serde_json::from_slice(&resp.body)
                .unwrap_or_else(|e| panic!("a JSON body that is not JSON ({e}): {text}"));
            if resp.status >= 400 {
                assert_error(&body, &text);
            } else if resp.status == 200 {
                assert_message(&body, &text);
            }
        } else if resp.content_type.starts_with("text/event-stream") {
            for event in text.split("\n\n") {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                let data = data.join("\n");
                if data.is_empty() {
                    continue;
                }
                let message: Value = serde_json::from_str(&data)
                    .unwrap_or_else(|e| panic!("SSE data that is not JSON ({e}): {data}"));
                assert_message(&message, &data);
            }
        }
        if let Some(req) = requests.get(answered) {
            check_answer(req, &resp, &text);
        }
        last_closes = resp.closes
            || requests
                .get(answered)
                .is_some_and(|r| r.bad_uri || r.closes || !r.body.is_empty() || resp.status >= 400);
        answered += 1;
    }
    if answered < requests.len() {
        assert!(
            answered > 0 && last_closes,
            "{} whole requests, {answered} responses",
            requests.len()
        );
    }
}

/// What the server answers `req` with, as far as its body decides it.
fn check_answer(req: &Req, resp: &Resp, text: &str) {
    if req.bad_uri {
        assert_eq!(resp.status, 400, "a URI hyper cannot read");
        return;
    }
    if req.method != "POST" || !req.json {
        return;
    }
    assert!(
        !(resp.status == 415 && resp.content_type.starts_with("text/plain")),
        "rmcp's plain-text 415 for a JSON body: {text}"
    );
    if resp.status != 400 || !resp.content_type.starts_with("application/json") {
        return;
    }
    let Ok(body) = serde_json::from_slice::<Value>(&resp.body) else {
        return;
    };
    let code = body["error"]["code"].as_i64();
    match serde_json::from_slice::<Value>(&req.body) {
        Err(_) => {
            assert_eq!(code, Some(-32700), "a body that is not JSON: {text}");
            assert_eq!(body["id"], Value::Null, "{text}");
        }
        Ok(sent) if code == Some(-32600) => {
            let id = match sent.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            assert_eq!(body["id"], id, "the id of an unreadable message: {text}");
        }
        Ok(_) => {}
    }
}
