//! The embedded MCP server over a stdio-style byte pipe (`serve_io`), where
//! `tools/call` takes the direct path: notifications before the reply, replies
//! to server-to-client requests, cancellation, both protocol generations, and
//! the framing rules (pipelined calls, bad lines, replies owed at end of input).
#![allow(clippy::unwrap_used)]
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use crate::support::client::Recorder;
use crate::support::text_of;
use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, ContentBlock, ElicitationAction,
    LoggingLevel, ProtocolVersion, Tool,
};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::sync::mpsc;
use toolrouter::{Elicitation, Hub, JsonObject, ServerOptions, ToolContext};

/// Every test gives up after this long instead of hanging.
const LIMIT: Duration = Duration::from_secs(60);

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn tool(name: &str) -> Tool {
    Tool::new(
        name.to_owned(),
        "test tool",
        Arc::new(object(json!({ "type": "object" }))),
    )
}

fn hub() -> Hub {
    let hub = Hub::new();
    hub.registry()
        .register_fn(tool("echo"), |args, _| async move {
            let text = args
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .unwrap();
    hub.registry()
        .register_fn(tool("work"), |_, ctx: ToolContext| async move {
            ctx.log(LoggingLevel::Info, json!("starting")).await;
            for step in [1.0, 2.0] {
                ctx.progress(step, Some(2.0), None).await;
            }
            Ok(CallToolResult::success(vec![ContentBlock::text("worked")]))
        })
        .unwrap();
    hub.registry()
        .register_fn(tool("ask_name"), |_, ctx: ToolContext| async move {
            let form = json!({
                "type": "object",
                "properties": { "name": { "type": "string" } },
                "required": ["name"]
            });
            let answer = match ctx.elicit_form("Your name?", form).await? {
                Elicitation::Accept(content) => format!("accepted {}", content["name"]),
                Elicitation::Decline => "declined".to_owned(),
                Elicitation::Cancel => "cancelled".to_owned(),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(answer)]))
        })
        .unwrap();
    hub
}

async fn connect(
    hub: &Hub,
    version: ProtocolVersion,
) -> (
    RunningService<RoleClient, Recorder>,
    mpsc::UnboundedReceiver<String>,
) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let hub = hub.clone();
    tokio::spawn(async move {
        let (read, write) = tokio::io::split(server_io);
        toolrouter::serve_io(hub, ServerOptions::default(), read, write).await
    });
    let (events, rx) = mpsc::unbounded_channel();
    let client = Recorder {
        version,
        events,
        elicitation: Some(ElicitationAction::Accept),
    }
    .serve(client_io)
    .await
    .unwrap();
    (client, rx)
}

async fn call(
    client: &RunningService<RoleClient, Recorder>,
    name: &str,
    args: Value,
) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(object(args)))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_arrive_before_the_reply_of_the_call_that_sent_them() {
    let hub = hub();
    let (client, mut events) = connect(&hub, ProtocolVersion::V_2025_11_25).await;
    tokio::time::timeout(LIMIT, async {
        let result = call(&client, "work", json!({})).await;
        assert_eq!(text_of(&result), "worked");
        // The client runs its handlers in tasks of their own, so they may
        // still be running when the call returns, and only the set is checked
        // here; the wire order is checked with a raw client below.
        let mut seen = Vec::new();
        while seen.len() < 3 {
            seen.push(events.recv().await.expect("the client is still connected"));
        }
        seen.sort();
        assert_eq!(seen, ["log \"starting\"", "progress 1", "progress 2"]);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_during_a_call_round_trips() {
    let hub = hub();
    let (client, mut events) = connect(&hub, ProtocolVersion::V_2025_11_25).await;
    tokio::time::timeout(LIMIT, async {
        let result = call(&client, "ask_name", json!({})).await;
        assert_eq!(result.is_error, Some(false), "{}", text_of(&result));
        assert_eq!(text_of(&result), "accepted \"Ada\"");
        assert_eq!(events.recv().await.as_deref(), Some("elicitation"));
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rmcp_client_of_either_protocol_generation_is_answered() {
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
            let (client, _) = connect(&hub, version).await;
            let result = call(&client, "echo", json!({ "text": "hi" })).await;
            assert_eq!(text_of(&result), "hi");
            // An unknown tool is a protocol error naming the close ones.
            let unknown = client
                .call_tool(CallToolRequestParams::new("ecko").with_arguments(JsonObject::new()))
                .await;
            let message = format!("{:?}", unknown.unwrap_err());
            assert!(message.contains("echo"), "{message}");
        }
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_its_handler() {
    let hub = Hub::new();
    let (started_tx, mut started) = mpsc::unbounded_channel::<()>();
    let (stopped_tx, mut stopped) = mpsc::unbounded_channel::<bool>();
    struct OnDrop(ToolContext, mpsc::UnboundedSender<bool>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            let _ = self.1.send(self.0.is_cancelled());
        }
    }
    hub.registry()
        .register_fn(tool("wait"), move |_, ctx: ToolContext| {
            let (started_tx, stopped_tx) = (started_tx.clone(), stopped_tx.clone());
            async move {
                let _guard = OnDrop(ctx.clone(), stopped_tx);
                let _ = started_tx.send(());
                ctx.cancelled().await;
                Ok(CallToolResult::success(vec![]))
            }
        })
        .unwrap();
    let (client, _) = connect(&hub, ProtocolVersion::V_2025_11_25).await;
    tokio::time::timeout(LIMIT, async {
        let request = ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
            CallToolRequestParams::new("wait").with_arguments(JsonObject::new()),
        ));
        let handle = client
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .unwrap();
        started.recv().await.unwrap();
        handle
            .cancel(Some("test cancels".to_owned()))
            .await
            .unwrap();
        assert!(stopped.recv().await.expect("the handler stopped"));
    })
    .await
    .unwrap();
}

/// A client that writes raw lines and reads raw lines.
struct Raw {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    server: tokio::task::JoinHandle<Result<(), toolrouter::ServeError>>,
}

impl Raw {
    async fn start(hub: &Hub) -> Self {
        Self::start_with(hub, true, "2025-06-18").await
    }

    /// `direct`: toolrouter's `serve_io`; otherwise the same server on rmcp's
    /// own stdio transport and service loop, for comparison.
    async fn start_with(hub: &Hub, direct: bool, version: &str) -> Self {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let hub = hub.clone();
        let server = tokio::spawn(async move {
            let (read, write) = tokio::io::split(server_io);
            if direct {
                return toolrouter::serve_io(hub, ServerOptions::default(), read, write).await;
            }
            let server = toolrouter::McpServer::new(hub, ServerOptions::default());
            let running = server.serve((read, write)).await.unwrap();
            let _ = running.waiting().await;
            Ok(())
        });
        let (read, write) = tokio::io::split(client_io);
        let mut raw = Self {
            write,
            read: BufReader::new(read),
            server,
        };
        raw.send(&format!(r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#)).await;
        let reply = raw.recv().await;
        assert_eq!(reply["id"], 0);
        assert_eq!(reply["result"]["protocolVersion"], version);
        raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.read.read_line(&mut line).await.unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

fn echo_line(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_calls_each_get_their_own_reply() {
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        let mut raw = Raw::start(&hub).await;
        let batch: String = (1..=16)
            .map(|i| echo_line(i, &format!("t{i}")) + "\r\n")
            .collect();
        raw.write.write_all(batch.as_bytes()).await.unwrap();
        let mut seen = Vec::new();
        for _ in 0..16 {
            let reply = raw.recv().await;
            let id = reply["id"].as_u64().unwrap();
            assert_eq!(reply["result"]["content"][0]["text"], format!("t{id}"));
            assert_eq!(reply["result"].get("resultType"), None);
            seen.push(id);
        }
        seen.sort_unstable();
        assert_eq!(seen, (1..=16).collect::<Vec<_>>());
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_serde_cannot_read_is_answered_with_a_parse_error() {
    // Found by the stdio_lines fuzz target: well-formed JSON past serde's
    // limits (a number out of range, nesting past 128 levels, a lone
    // surrogate escape) passed the reader's JSON check, and rmcp, whose parse
    // calls those syntax errors, dropped the line without a word: the client
    // waited forever for the reply to its request.
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        let mut raw = Raw::start(&hub).await;
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"echo","arguments":{{"x":{}{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":1e400}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"\ud800"}}"#,
            deep.as_str(),
            "2E20251",
        ] {
            raw.send(line).await;
            let reply = raw.recv().await;
            assert_eq!(reply["error"]["code"], -32700, "{line}: {reply}");
            assert_eq!(reply["id"], Value::Null, "{line}: {reply}");
        }
        raw.send(&echo_line(8, "after")).await;
        let reply = raw.recv().await;
        assert_eq!(reply["id"], 8);
        assert_eq!(reply["result"]["content"][0]["text"], "after");
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_lines_are_answered_and_the_server_reads_on() {
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        let mut raw = Raw::start(&hub).await;
        // Not JSON: a parse error with a null id (rmcp would say nothing, and
        // a client waiting for its id would hang). Then JSON of the wrong
        // shape: an Invalid Request error with a null id (rmcp's own answer).
        // Then a call still works.
        raw.send("this is not json").await;
        let reply = raw.recv().await;
        assert_eq!(reply["error"]["code"], -32700);
        assert_eq!(reply["id"], Value::Null);
        raw.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"nope"}"#)
            .await;
        let reply = raw.recv().await;
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["id"], Value::Null);
        raw.send(&echo_line(8, "after")).await;
        let reply = raw.recv().await;
        assert_eq!(reply["id"], 8);
        assert_eq!(reply["result"]["content"][0]["text"], "after");
        // A call of a tool that does not exist is a JSON-RPC error.
        raw.send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}"#)
            .await;
        let reply = raw.recv().await;
        assert_eq!(reply["id"], 9);
        assert_eq!(reply["error"]["code"], -32602);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_owed_when_the_input_ends_are_still_written() {
    let hub = hub();
    hub.registry()
        .register_fn(tool("slowish"), |_, _| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(CallToolResult::success(vec![ContentBlock::text("late")]))
        })
        .unwrap();
    tokio::time::timeout(LIMIT, async {
        let mut raw = Raw::start(&hub).await;
        raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slowish"}}"#)
            .await;
        raw.write.shutdown().await.unwrap();
        let reply = raw.recv().await;
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["result"]["content"][0]["text"], "late");
        let mut rest = String::new();
        assert_eq!(
            raw.read.read_line(&mut rest).await.unwrap(),
            0,
            "then the output ends"
        );
        raw.server.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_rmcp_runs_that_notifies_is_answered_when_the_input_ends() {
    // Found by the stdio_lines fuzz target: a client writes its handshake and a
    // call at once and closes its input (`printf ... | toolrouter serve`). The
    // call, read before the handshake was done, is rmcp's to run; its tool
    // logs. Once the relay to rmcp closed, rmcp's loop no longer sent its
    // handlers' notifications, so the tool waited on its log until rmcp gave
    // up on it 5 s later, and its reply was never written. (The tool here
    // logs after a pause, so that rmcp has read the end of the input first.)
    let hub = hub();
    hub.registry()
        .register_fn(tool("late_log"), |_, ctx: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ctx.log(LoggingLevel::Info, json!("late")).await;
            Ok(CallToolResult::success(vec![ContentBlock::text("logged")]))
        })
        .unwrap();
    tokio::time::timeout(LIMIT, async {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn({
            let hub = hub.clone();
            async move {
                let (read, write) = tokio::io::split(server_io);
                toolrouter::serve_io(hub, ServerOptions::default(), read, write).await
            }
        });
        let (read, mut write) = tokio::io::split(client_io);
        let lines = concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"late_log"}}"#,
            "\n",
        );
        let started = std::time::Instant::now();
        write.write_all(lines.as_bytes()).await.unwrap();
        write.shutdown().await.unwrap();
        let mut read = BufReader::new(read);
        let mut seen = Vec::new();
        let mut line = String::new();
        while read.read_line(&mut line).await.unwrap() > 0 {
            seen.push(serde_json::from_str::<Value>(&line).unwrap());
            line.clear();
        }
        let reply = seen.iter().find(|m| m["id"] == 1);
        assert_eq!(
            reply.map(|r| r["result"]["content"][0]["text"].clone()),
            Some(json!("logged")),
            "{seen:?}"
        );
        assert!(
            seen.iter().any(|m| m["method"] == "notifications/message"),
            "{seen:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
        served.await.unwrap().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_direct_path_answers_what_rmcp_answers() {
    let hub = hub();
    // One call per line, each answered before the next is sent: valid calls,
    // an unknown tool, arguments of the wrong type, a call naming its own
    // protocol version (the session's, and another one), a progress token, and
    // lines that mention `tools/call` without being plain calls.
    let calls = [
        echo_line(1, "plain"),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"echo","arguments":[1]}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"v"},"_meta":{"io.modelcontextprotocol/protocolVersion":"VERSION"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"w"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"work","_meta":{"progressToken":"p"}}}"#.to_owned(),
        // Lines that are not plain calls (rmcp's loop answers them either way).
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"_meta":{"note":"tools/call"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","extra":true,"params":{"name":"echo","arguments":{"text":"x"},"more":1,"_meta":{"progressToken":5,"vendor/x":"y"}}}"#.to_owned(),
    ];
    tokio::time::timeout(LIMIT, async {
        // (A 2026-07-28 client does not `initialize`: its requests carry their
        // own version and all go through rmcp's loop.)
        for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
            let mut transcripts = Vec::new();
            for direct in [true, false] {
                let mut raw = Raw::start_with(&hub, direct, version).await;
                let mut transcript = Vec::new();
                for line in &calls {
                    raw.send(&line.replace("VERSION", version)).await;
                    loop {
                        let reply = raw.recv().await;
                        let done = reply.get("id").is_some();
                        transcript.push(reply);
                        if done {
                            break;
                        }
                    }
                }
                transcripts.push(transcript);
            }
            assert_eq!(transcripts[0], transcripts[1], "protocol {version}");
            assert!(
                transcripts[0].len() > calls.len(),
                "the notifications of `work` were seen"
            );
        }
    })
    .await
    .unwrap();
}

/// Lines rmcp does not take for a request (a `result` beside the method, a
/// JSON-RPC version other than 2.0) are not calls on the direct path either:
/// both paths answer them as rmcp's loop does. A `ping` after them (relayed
/// to rmcp in order on both paths) marks the end of what they caused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_that_are_not_requests_are_not_answered_as_calls() {
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        let mut transcripts = Vec::new();
        for direct in [true, false] {
            let mut raw = Raw::start_with(&hub, direct, "2025-11-25").await;
            raw.send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"r"}},"result":{}}"#).await;
            raw.send(r#"{"jsonrpc":"1.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"j"}}}"#).await;
            raw.send(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#).await;
            let mut transcript = Vec::new();
            loop {
                let reply = raw.recv().await;
                let done = reply["id"] == 11;
                transcript.push(reply);
                if done {
                    break;
                }
            }
            transcripts.push(transcript);
        }
        assert_eq!(transcripts[0], transcripts[1]);
        assert!(
            transcripts[0].iter().all(|reply| reply.get("result").is_none() || reply["id"] == 11),
            "{:?}",
            transcripts[0]
        );
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_precede_the_reply_on_the_wire() {
    let hub = hub();
    tokio::time::timeout(LIMIT, async {
        let mut raw = Raw::start(&hub).await;
        raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"progressToken":"p"}}}"#).await;
        let methods: Vec<Value> = [(); 4].iter().map(|_| Value::Null).collect();
        let mut seen = Vec::new();
        for _ in methods {
            let line = raw.recv().await;
            seen.push(line.get("method").cloned().unwrap_or_else(|| line["id"].clone()));
        }
        assert_eq!(
            seen,
            [
                json!("notifications/message"),
                json!("notifications/progress"),
                json!("notifications/progress"),
                json!(1)
            ]
        );
    })
    .await
    .unwrap();
}
