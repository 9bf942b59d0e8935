//! Fuzz target: the stdio server (`serve_io`: the line reader of
//! `src/server/line.rs`, its direct `tools/call` path, the relay to rmcp and the
//! answers of `bad_input.rs`) over arbitrary client bytes.
//!
//! The first byte: bit 0 puts an `initialize` request and the `initialized`
//! notification before the input (so that most inputs reach an initialized
//! session, where calls take the direct path); bits 1-7 seed the sizes of the
//! chunks the input is read in (1 to 32 bytes, some reads pending first). The
//! rest is what the client writes.
//!
//! Checked, on a current-thread runtime with a paused clock (its timeouts pass
//! without waiting):
//! - no panic, in the server or any task it spawns;
//! - the server finishes once the input ends (within 60 s of its clock), and
//!   leaves no task running;
//! - every output line is a JSON-RPC 2.0 message (a request or notification
//!   with a method, or a response with exactly one of `result` and `error`,
//!   which has a code and a message), readable as rmcp's `ServerJsonRpcMessage`;
//! - every input line that rmcp reads as a request gets a response carrying its
//!   id; exactly one when no other line names that id;
//! - every other line that is owed an answer, one that is not JSON or a JSON
//!   object with an `id` and a `method` that rmcp cannot read, gets an error
//!   with no id (one each at least).
//!
//! What is not owed a reply, so not checked: a request named by a
//! `notifications/cancelled` (rmcp drops a cancelled request's reply too); a
//! line rmcp skips (a notification it does not know, anything with a
//! `notifications/` method it cannot read); and everything once the server
//! has stopped because the first message was neither `initialize`, a `ping`,
//! nor a request with inline metadata (`ServeError::Handshake`: rmcp then
//! ends the connection, and what the client sent after is not read).
//!
//! Lines of the wrong shape (`"params": 5`) are answered with an id-less
//! `Invalid request` (rmcp's answer, and the one `tests/it/server_stdio.rs`
//! expects), so the id property is stated for lines rmcp reads, and the
//! id-less answers are only counted. The 16 MiB line limit is not reached at
//! fuzzing sizes.
#![no_main]
// `ToolContext::log` takes rmcp's `LoggingLevel`, deprecated by SEP-2577.
#![allow(deprecated)]

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::runtime::Runtime;
use toolrouter::rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ContentBlock, JsonRpcMessage, LoggingLevel, RequestId,
    ServerJsonRpcMessage, Tool,
};
use toolrouter::{Hub, JsonObject, ServeError, ServerOptions, ToolContext};

const HANDSHAKE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"0\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

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

fn tool(name: &str) -> Tool {
    let schema = json!({ "type": "object" });
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(name.to_owned(), "fuzz tool", Arc::new(schema))
}

/// A hub with two tools: `echo` (its `text` back) and `work` (a log message and
/// two progress notifications, then a result).
fn hub() -> Hub {
    static HUB: OnceLock<Hub> = OnceLock::new();
    HUB.get_or_init(|| {
        let hub = Hub::new();
        hub.registry()
            .register_fn(tool("echo"), |args: JsonObject, _| async move {
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            })
            .expect("echo");
        hub.registry()
            .register_fn(tool("work"), |_, ctx: ToolContext| async move {
                ctx.log(LoggingLevel::Info, json!("starting")).await;
                for step in [1.0, 2.0] {
                    ctx.progress(step, Some(2.0), None).await;
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("worked")]))
            })
            .expect("work");
        hub
    })
    .clone()
}

/// The client's bytes, read in chunks of 1 to 32 bytes, a read sometimes
/// pending (woken at once) before it is answered.
struct Chunks {
    data: Vec<u8>,
    at: usize,
    state: u32,
}

impl Chunks {
    fn next(&mut self) -> u32 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 17;
        self.state ^= self.state << 5;
        self.state
    }
}

impl AsyncRead for Chunks {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let roll = this.next();
        if roll & 0x300 == 0 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let len = (roll % 32) as usize + 1;
        let end = (this.at + len)
            .min(this.data.len())
            .min(this.at + buf.remaining());
        buf.put_slice(&this.data[this.at..end]);
        this.at = end;
        Poll::Ready(Ok(()))
    }
}

/// Everything the server writes.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.lock().expect("output").extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// An id as rmcp reads it (`1.0` is `1`), `None` when it cannot be one.
fn request_id(id: &Value) -> Option<RequestId> {
    serde_json::from_value(id.clone()).ok()
}

/// A line as the server frames it: without its `\r` and a UTF-8 byte order mark.
fn body(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let mut input = Vec::with_capacity(HANDSHAKE.len() + rest.len());
    if flags & 1 != 0 {
        input.extend_from_slice(HANDSHAKE);
    }
    input.extend_from_slice(rest);
    let reader = Chunks {
        data: input.clone(),
        at: 0,
        state: u32::from(flags >> 1).wrapping_mul(0x9E37_79B9) | 1,
    };
    let output = Output::default();
    let served = runtime().block_on(async {
        let served = tokio::time::timeout(
            Duration::from_secs(60),
            toolrouter::serve_io(hub(), ServerOptions::default(), reader, output.clone()),
        )
        .await
        .expect("the server finishes once the input ends");
        // What the server spawned has ended (or ends at its next poll).
        let metrics = tokio::runtime::Handle::current().metrics();
        for _ in 0..64 {
            if metrics.num_alive_tasks() == 0 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(metrics.num_alive_tasks(), 0, "tasks left running");
        served
    });
    let output = output.0.lock().expect("output").clone();
    check(&input, &output, &served);
});

fn check(input: &[u8], output: &[u8], served: &Result<(), ServeError>) {
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        eprintln!("input:\n{}", String::from_utf8_lossy(input));
        eprintln!(
            "served: {served:?}\noutput:\n{}",
            String::from_utf8_lossy(output)
        );
    }
    assert!(
        output.is_empty() || output.ends_with(b"\n"),
        "output ends with a whole line"
    );
    // Replies by id (rmcp's reading of it), and the id-less errors.
    let mut replies: HashMap<RequestId, usize> = HashMap::new();
    let mut idless_errors = 0;
    for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "output line is not JSON ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        let text = String::from_utf8_lossy(line);
        assert_eq!(message["jsonrpc"], "2.0", "{text}");
        serde_json::from_value::<ServerJsonRpcMessage>(message.clone())
            .unwrap_or_else(|e| panic!("not a JSON-RPC message rmcp reads ({e}): {text}"));
        if message.get("method").is_some() {
            assert!(message["method"].is_string(), "{text}");
            continue;
        }
        let (result, error) = (message.get("result"), message.get("error"));
        assert!(
            result.is_some() != error.is_some(),
            "result or error: {text}"
        );
        if let Some(error) = error {
            assert!(error["code"].is_i64(), "error code: {text}");
            assert!(error["message"].is_string(), "error message: {text}");
        }
        match message.get("id").filter(|id| !id.is_null()) {
            Some(id) => {
                let id = request_id(id).unwrap_or_else(|| panic!("reply id: {text}"));
                *replies.entry(id).or_default() += 1;
            }
            None => {
                assert!(error.is_some(), "a result without an id: {text}");
                idless_errors += 1;
            }
        }
    }
    if matches!(served, Err(ServeError::Handshake(_))) {
        return;
    }

    // What the client sent, line by line, as the server frames it (a last line
    // without a newline counts).
    let mut owed: Vec<RequestId> = Vec::new();
    let mut owed_idless = 0;
    let mut named: HashMap<RequestId, usize> = HashMap::new();
    let mut cancelled: Vec<RequestId> = Vec::new();
    for line in input.split(|&b| b == b'\n') {
        let body = body(line);
        if body.trim_ascii().is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_slice::<Value>(body) else {
            // Not JSON: answered with a parse error (id null).
            owed_idless += 1;
            continue;
        };
        let Value::Object(object) = &value else {
            continue;
        };
        if let Some(id) = object.get("id").and_then(request_id) {
            *named.entry(id).or_default() += 1;
        }
        let method = object.get("method").and_then(Value::as_str);
        if method == Some("notifications/cancelled")
            && let Some(id) = value.pointer("/params/requestId").and_then(request_id)
        {
            cancelled.push(id);
        }
        match serde_json::from_slice::<ClientJsonRpcMessage>(body) {
            Ok(JsonRpcMessage::Request(request)) => owed.push(request.id),
            Ok(_) => {}
            Err(_) => {
                if object.contains_key("id")
                    && let Some(method) = method
                    && !method.starts_with("notifications/")
                {
                    owed_idless += 1;
                }
            }
        }
    }
    for id in owed {
        if cancelled.contains(&id) {
            continue;
        }
        let got = replies.get(&id).copied().unwrap_or(0);
        assert!(got >= 1, "no reply to request {id}");
        if named.get(&id) == Some(&1) {
            assert_eq!(got, 1, "replies to request {id}");
        }
    }
    assert!(
        idless_errors >= owed_idless,
        "{owed_idless} lines owed an id-less error, {idless_errors} given"
    );
}
