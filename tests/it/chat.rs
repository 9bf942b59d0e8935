//! `toolrouter chat` against a real HTTP server on 127.0.0.1 that answers with
//! hand-written provider streams (`tests/data/chat/`) and records every request:
//! the tools must be declared in the provider's dialect on the first request, and
//! the second must replay the assistant's call and carry the `calculate` result
//! (`(12 + 5) * 3` = 51) in that dialect's shape.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

use crate::support::{repo_root, toolrouter_bin};

/// What the server answers one request with.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Answer {
    fn stream(file: &str) -> Self {
        let path = repo_root().join("tests/data/chat").join(file);
        let body = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let content_type = if file.ends_with(".ndjson") {
            "application/x-ndjson"
        } else {
            "text/event-stream"
        };
        Self {
            status: 200,
            content_type,
            body,
        }
    }
}

/// One request the server received.
#[derive(Debug, Clone)]
struct Received {
    path_and_query: String,
    headers: HeaderMap,
    body: Value,
}

#[derive(Default)]
struct Recorder {
    answers: VecDeque<Answer>,
    received: Vec<Received>,
}

type Shared = Arc<Mutex<Recorder>>;

async fn answer(
    State(shared): State<Shared>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let next = {
        let mut recorder = shared.lock().unwrap();
        recorder.received.push(Received {
            path_and_query: uri
                .path_and_query()
                .map(|p| p.to_string())
                .unwrap_or_default(),
            headers,
            body,
        });
        recorder.answers.pop_front()
    };
    let Some(next) = next else {
        return Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from("the test server has no more answers"))
            .unwrap();
    };
    Response::builder()
        .status(next.status)
        .header("content-type", next.content_type)
        .body(Body::from(next.body))
        .unwrap()
}

/// Starts the server with `answers`; gives its base URL and the recorder.
async fn serve(answers: Vec<Answer>) -> (String, Shared) {
    let shared: Shared = Arc::new(Mutex::new(Recorder {
        answers: answers.into(),
        received: Vec::new(),
    }));
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://{addr}"), shared)
}

struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
    received: Vec<Received>,
}

const KEY_VARS: [&str; 4] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OLLAMA_API_KEY",
];

/// Runs `toolrouter chat` with `args` (plus `--base-url`), with `env` set and
/// every other provider key unset, against a server answering with `answers`.
async fn run_chat(
    answers: Vec<Answer>,
    base_suffix: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let (base, shared) = serve(answers).await;
    let workspace = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(toolrouter_bin());
    command
        .arg("chat")
        .args(args)
        .arg("--base-url")
        .arg(format!("{base}{base_suffix}"))
        .current_dir(workspace.path())
        .kill_on_drop(true);
    for var in KEY_VARS {
        command.env_remove(var);
    }
    for (var, value) in env {
        command.env(var, value);
    }
    let out = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .expect("toolrouter chat did not finish")
        .expect("run toolrouter chat");
    let received = shared.lock().unwrap().received.clone();
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        received,
    }
}

const PROMPT: &str = "What is (12 + 5) * 3?";

/// The names of the four read-only built-in tools (`write_to_file` needs
/// `--allow-write`), in the registry's (name) order.
const BUILTINS: [&str; 4] = ["calculate", "list_files", "read_file", "search_files"];

/// The sorted names of `declarations`, each found at the JSON pointer `name_at`.
fn names(declarations: &[Value], name_at: &str) -> Vec<String> {
    let mut names: Vec<String> = declarations
        .iter()
        .map(|d| {
            d.pointer(name_at)
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        })
        .collect();
    names.sort();
    names
}

/// The declaration whose name (at the JSON pointer `name_at`) is `name`.
fn find<'a>(declarations: &'a [Value], name_at: &str, name: &str) -> &'a Value {
    declarations
        .iter()
        .find(|d| d.pointer(name_at).and_then(Value::as_str) == Some(name))
        .unwrap_or_else(|| panic!("`{name}` not declared: {declarations:?}"))
}

fn header<'a>(request: &'a Received, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

fn assert_done(run: &Run, requests: usize) {
    assert!(
        run.ok,
        "chat failed\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(
        run.received.len(),
        requests,
        "requests sent: {:?}",
        run.received
    );
    assert!(
        run.stdout.contains("(12 + 5) * 3 = 51."),
        "stdout:\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("calculate"), "stdout:\n{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_chat_declares_tools_and_sends_results() {
    let run = run_chat(
        vec![
            Answer::stream("openai-chat.call.sse"),
            Answer::stream("openai-chat.answer.sse"),
        ],
        "/v1",
        &["--provider", "openai", "--model", "m1", "--prompt", PROMPT],
        &[("OPENAI_API_KEY", "sk-test")],
    )
    .await;
    assert_done(&run, 2);
    let (first, second) = (&run.received[0], &run.received[1]);
    assert_eq!(first.path_and_query, "/v1/chat/completions");
    assert_eq!(header(first, "authorization"), Some("Bearer sk-test"));
    assert_eq!(first.body["model"], "m1");
    assert_eq!(first.body["stream"], true);
    assert_eq!(first.body["stream_options"], json!({"include_usage": true}));
    assert_eq!(
        first.body["messages"],
        json!([{"role": "user", "content": PROMPT}])
    );

    let tools = first.body["tools"].as_array().expect("tools array");
    let name_of = "/function/name";
    assert_eq!(names(tools, name_of), BUILTINS);
    let calculate = find(tools, name_of, "calculate");
    assert_eq!(calculate["type"], "function");
    let parameters = &calculate["function"]["parameters"];
    assert_eq!(parameters["type"], "object");
    assert_eq!(parameters["properties"]["expression"]["type"], "string");
    assert_eq!(parameters["required"], json!(["expression"]));
    assert_eq!(second.body["tools"], first.body["tools"]);

    assert_eq!(
        second.body["messages"],
        json!([
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": "Let me work that out.", "tool_calls": [{
                "id": "call_calc1", "type": "function",
                "function": {"name": "calculate", "arguments": "{\"expression\":\"(12 + 5) * 3\"}"}}]},
            {"role": "tool", "tool_call_id": "call_calc1", "content": "51"},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_responses_declares_tools_and_sends_results() {
    let run = run_chat(
        vec![
            Answer::stream("openai-responses.call.sse"),
            Answer::stream("openai-responses.answer.sse"),
        ],
        "/v1",
        &[
            "--provider",
            "openai-responses",
            "--model",
            "m1",
            "--prompt",
            PROMPT,
            "--system",
            "Be brief.",
            "--json",
        ],
        &[("OPENAI_API_KEY", "sk-test")],
    )
    .await;
    assert!(
        run.ok,
        "chat failed\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(run.received.len(), 2);
    let (first, second) = (&run.received[0], &run.received[1]);
    assert_eq!(first.path_and_query, "/v1/responses");
    assert_eq!(header(first, "authorization"), Some("Bearer sk-test"));
    assert_eq!(first.body["instructions"], "Be brief.");
    assert_eq!(
        first.body["input"],
        json!([{"role": "user", "content": PROMPT}])
    );

    let tools = first.body["tools"].as_array().expect("tools array");
    assert_eq!(names(tools, "/name"), BUILTINS);
    let calculate = find(tools, "/name", "calculate");
    assert_eq!(calculate["type"], "function");
    assert_eq!(calculate["strict"], false);
    assert_eq!(
        calculate["parameters"]["properties"]["expression"]["type"],
        "string"
    );

    assert_eq!(
        second.body["input"],
        json!([
            {"role": "user", "content": PROMPT},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Let me work that out."}]},
            {"type": "function_call", "call_id": "call_calc1", "name": "calculate",
             "arguments": "{\"expression\":\"(12 + 5) * 3\"}"},
            {"type": "function_call_output", "call_id": "call_calc1", "output": "51"},
        ])
    );

    // --json: a request line before each turn, then the turn's events.
    let lines: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| l["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "request").count(),
        2,
        "{kinds:?}"
    );
    assert_eq!(kinds[0], "request");
    let result = lines
        .iter()
        .find(|l| l["type"] == "tool_result")
        .expect("a tool_result event");
    assert_eq!(result["name"], "calculate");
    assert_eq!(result["result"]["structuredContent"], json!({"result": 51}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_declares_tools_and_sends_results() {
    let run = run_chat(
        vec![
            Answer::stream("anthropic.call.sse"),
            Answer::stream("anthropic.answer.sse"),
        ],
        "",
        &[
            "--provider",
            "anthropic",
            "--model",
            "m1",
            "--prompt",
            PROMPT,
            "--system",
            "Be brief.",
            "--max-tokens",
            "1000",
        ],
        &[("ANTHROPIC_API_KEY", "sk-ant-test")],
    )
    .await;
    assert_done(&run, 2);
    let (first, second) = (&run.received[0], &run.received[1]);
    assert_eq!(first.path_and_query, "/v1/messages");
    assert_eq!(header(first, "x-api-key"), Some("sk-ant-test"));
    assert_eq!(header(first, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(first, "authorization"), None);
    assert_eq!(first.body["max_tokens"], 1000);
    assert_eq!(first.body["system"], "Be brief.");
    assert_eq!(first.body["stream"], true);

    let tools = first.body["tools"].as_array().expect("tools array");
    let name_of = "/name";
    assert_eq!(names(tools, name_of), BUILTINS);
    let schema = &find(tools, name_of, "calculate")["input_schema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["expression"]["type"], "string");
    assert_eq!(schema["required"], json!(["expression"]));

    assert_eq!(
        second.body["messages"],
        json!([
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me work that out."},
                {"type": "tool_use", "id": "toolu_calc1", "name": "calculate",
                 "input": {"expression": "(12 + 5) * 3"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_calc1",
                                          "content": [{"type": "text", "text": "51"}]}]},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_declares_tools_and_sends_results() {
    let run = run_chat(
        vec![
            Answer::stream("gemini.call.sse"),
            Answer::stream("gemini.answer.sse"),
        ],
        "",
        &[
            "--provider",
            "gemini",
            "--model",
            "m1",
            "--prompt",
            PROMPT,
            "--system",
            "Be brief.",
        ],
        &[("GEMINI_API_KEY", "g-test")],
    )
    .await;
    assert_done(&run, 2);
    let (first, second) = (&run.received[0], &run.received[1]);
    assert_eq!(
        first.path_and_query,
        "/v1beta/models/m1:streamGenerateContent?alt=sse"
    );
    assert_eq!(header(first, "x-goog-api-key"), Some("g-test"));
    assert_eq!(
        first.body["systemInstruction"],
        json!({"parts": [{"text": "Be brief."}]})
    );
    assert_eq!(
        first.body["contents"],
        json!([{"role": "user", "parts": [{"text": PROMPT}]}])
    );

    let tools = first.body["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), 1, "one functionDeclarations entry: {tools:?}");
    let declarations = tools[0]["functionDeclarations"]
        .as_array()
        .expect("functionDeclarations");
    let name_of = "/name";
    assert_eq!(names(declarations, name_of), BUILTINS);
    let parameters = &find(declarations, name_of, "calculate")["parameters"];
    assert_eq!(parameters["type"], "OBJECT");
    assert_eq!(parameters["properties"]["expression"]["type"], "STRING");
    assert_eq!(parameters["required"], json!(["expression"]));

    assert_eq!(
        second.body["contents"],
        json!([
            {"role": "user", "parts": [{"text": PROMPT}]},
            {"role": "model", "parts": [
                {"text": "Let me work that out."},
                {"functionCall": {"name": "calculate", "args": {"expression": "(12 + 5) * 3"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "calculate",
                "response": {"output": {"result": 51}, "content": "51"}}}]},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_declares_tools_and_sends_results() {
    let run = run_chat(
        vec![
            Answer::stream("ollama.call.ndjson"),
            Answer::stream("ollama.answer.ndjson"),
        ],
        "",
        &["--provider", "ollama", "--model", "m1", "--prompt", PROMPT],
        &[],
    )
    .await;
    assert_done(&run, 2);
    let (first, second) = (&run.received[0], &run.received[1]);
    assert_eq!(first.path_and_query, "/api/chat");
    assert_eq!(
        header(first, "authorization"),
        None,
        "no key, no auth header"
    );
    assert_eq!(first.body["stream"], true);

    let tools = first.body["tools"].as_array().expect("tools array");
    let name_of = "/function/name";
    assert_eq!(names(tools, name_of), BUILTINS);
    let parameters = &find(tools, name_of, "calculate")["function"]["parameters"];
    assert_eq!(parameters["properties"]["expression"]["type"], "string");

    assert_eq!(
        second.body["messages"],
        json!([
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": "Let me work that out.", "tool_calls": [
                {"function": {"name": "calculate", "arguments": {"expression": "(12 + 5) * 3"}}}]},
            {"role": "tool", "tool_name": "calculate", "content": "51"},
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_tools_teach_the_tools_and_answer_in_text() {
    let run = run_chat(
        vec![
            Answer::stream("openai-chat.text-call.sse"),
            Answer::stream("openai-chat.answer.sse"),
        ],
        "/v1",
        &[
            "--provider",
            "vllm",
            "--model",
            "m1",
            "--prompt",
            PROMPT,
            "--text-tools",
        ],
        &[],
    )
    .await;
    assert_done(&run, 2);
    let (first, second) = (&run.received[0].body, &run.received[1].body);
    assert!(first.get("tools").is_none(), "no declared tools: {first}");
    let system = &first["messages"][0];
    assert_eq!(system["role"], "system");
    let text = system["content"].as_str().unwrap();
    assert!(text.starts_with("# Tools\n"), "{text}");
    for name in BUILTINS {
        assert!(
            text.contains(&format!("### {name}\n")),
            "{name} missing from {text}"
        );
    }

    let messages = second["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        4,
        "system, user, assistant, results: {messages:?}"
    );
    assert_eq!(messages[0], *system);
    assert_eq!(messages[1], json!({"role": "user", "content": PROMPT}));
    assert_eq!(messages[2]["role"], "assistant");
    let said = messages[2]["content"].as_str().unwrap();
    assert!(said.starts_with("Let me work that out."), "{said}");
    assert!(
        said.contains("<calculate>") && said.contains("(12 + 5) * 3"),
        "{said}"
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "<tool_result name=\"calculate\">\n51\n</tool_result>"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_error_prints_status_and_body() {
    let answer = Answer {
        status: 401,
        content_type: "application/json",
        body: br#"{"error":{"message":"invalid api key"}}"#.to_vec(),
    };
    let run = run_chat(
        vec![answer],
        "/v1",
        &["--provider", "openai", "--model", "m1", "--prompt", PROMPT],
        &[],
    )
    .await;
    assert!(!run.ok, "must fail\nstdout:\n{}", run.stdout);
    assert!(run.stderr.contains("401"), "stderr: {}", run.stderr);
    assert!(
        run.stderr.contains("invalid api key"),
        "stderr: {}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "stderr: {}", run.stderr);
    assert_eq!(run.received.len(), 1);
}

/// A server that reads one request, answers with headers promising all of
/// `body` and the first half of it, then closes the connection (or, with
/// `stall`, sends nothing more and waits for the client to give up). Gives its
/// base URL and a handle yielding the request body.
async fn serve_cut(body: Vec<u8>, stall: bool) -> (String, tokio::task::JoinHandle<Vec<u8>>) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = Vec::new();
        let mut buf = [0u8; 8192];
        let head_end = loop {
            let n = socket.read(&mut buf).await.unwrap();
            assert!(n > 0, "the client closed before sending its request");
            request.extend_from_slice(&buf[..n]);
            if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
                break at + 4;
            }
        };
        let head = String::from_utf8_lossy(&request[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map(|v| v.trim().parse().unwrap())
            .unwrap_or(0);
        while request.len() < head_end + length {
            let n = socket.read(&mut buf).await.unwrap();
            assert!(n > 0, "the client closed mid-request");
            request.extend_from_slice(&buf[..n]);
        }
        let response_head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        socket.write_all(response_head.as_bytes()).await.unwrap();
        socket.write_all(&body[..body.len() / 2]).await.unwrap();
        socket.flush().await.unwrap();
        if stall {
            // Wait until the client closes the connection.
            while socket.read(&mut buf).await.is_ok_and(|n| n > 0) {}
        }
        drop(socket);
        request[head_end..].to_vec()
    });
    (format!("http://{addr}"), task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_cut_midway_is_reported() {
    check_cut(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stream_is_given_up_and_reported() {
    check_cut(true).await;
}

async fn check_cut(stall: bool) {
    let body = Answer::stream("anthropic.call.sse").body;
    let (base, server) = serve_cut(body, stall).await;
    let workspace = tempfile::tempdir().unwrap();
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(toolrouter_bin())
            .args([
                "chat",
                "--provider",
                "anthropic",
                "--model",
                "m1",
                "--prompt",
                PROMPT,
                "--read-timeout",
                "1",
            ])
            .arg("--base-url")
            .arg(&base)
            .env_remove("ANTHROPIC_API_KEY")
            .current_dir(workspace.path())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("toolrouter chat did not finish")
    .expect("run toolrouter chat");
    let request: Value = serde_json::from_slice(&server.await.unwrap()).unwrap();
    assert_eq!(
        request["messages"],
        json!([{"role": "user", "content": PROMPT}])
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "must fail\nstdout:\n{stdout}");
    assert!(
        stderr.contains("turn 1: the provider stream failed"),
        "stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(
        stdout.contains("Let me work that out."),
        "text so far kept: {stdout}"
    );
    assert!(
        !stdout.contains("result #0"),
        "a cut call never runs: {stdout}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_step_limit_stops_the_loop() {
    let run = run_chat(
        vec![
            Answer::stream("openai-chat.call.sse"),
            Answer::stream("openai-chat.answer.sse"),
        ],
        "/v1",
        &[
            "--provider",
            "openai",
            "--model",
            "m1",
            "--prompt",
            PROMPT,
            "--max-steps",
            "1",
        ],
        &[],
    )
    .await;
    assert!(!run.ok, "must report the limit\nstdout:\n{}", run.stdout);
    assert!(run.stderr.contains("--max-steps"), "stderr: {}", run.stderr);
    assert_eq!(run.received.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_is_refused_before_any_request() {
    let run = run_chat(
        vec![],
        "",
        &["--provider", "bedrock", "--model", "m1", "--prompt", PROMPT],
        &[],
    )
    .await;
    assert!(!run.ok);
    assert!(run.stderr.contains("SigV4"), "stderr: {}", run.stderr);
    assert!(run.received.is_empty());
}
