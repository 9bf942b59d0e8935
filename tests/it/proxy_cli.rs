//! The `toolrouter proxy` command: its first stderr line states the URL, the
//! upstream's key comes from the profile's variable and is never logged (the
//! bodies are, at trace level only), and a non-loopback address needs
//! `--allow-remote` and `--token`.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};

use serde_json::json;

use crate::proxy::{fold, frames, recording, request};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::toolrouter_bin;

/// The running command; stopped when dropped (a failed assertion included).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the command; gives the child and the URL its first stderr line states.
fn start(upstream: &str, extra: &[&str], env: &[(&str, &str)]) -> (Running, String) {
    let mut command = Command::new(toolrouter_bin());
    command
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            upstream,
            "--provider",
            "vllm",
        ])
        .args(extra)
        .env_remove("VLLM_API_KEY")
        .env_remove("TOOLROUTER_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let logging = env.iter().any(|(key, _)| *key == "TOOLROUTER_LOG");
    let mut child = Running(command.spawn().unwrap());
    let mut stderr = BufReader::new(child.0.stderr.take().unwrap());
    let expected_tail = format!(" -> {upstream}\n");
    let url = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "stderr ended");
        let url = line
            .strip_prefix("toolrouter: proxying at ")
            .and_then(|rest| rest.strip_suffix(&expected_tail));
        match url {
            Some(url) => break url.to_owned(),
            // With a log level set, log lines may come first.
            None if logging => continue,
            None => panic!("the first stderr line should state the URL: {line:?}"),
        }
    };
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"),
        "{url}"
    );
    child.0.stderr = Some(stderr.into_inner());
    (child, url)
}

/// Stops the child and gives the rest of its stderr.
fn stop(mut child: Running) -> String {
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    let mut rest = String::new();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut rest)
        .unwrap();
    rest
}

#[tokio::test]
async fn the_command_states_its_url_sends_the_profiles_key_and_never_logs_it() {
    let file = recording("openai-compat.hermes-text.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file)]).await;
    let key = "sk-env-key-7Hq2xV9mZ3";
    let (child, url) = start(
        upstream.base_url(),
        &[],
        &[("VLLM_API_KEY", key), ("TOOLROUTER_LOG", "trace")],
    );
    let response = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .bearer_auth("sk-what-the-app-sent")
        .json(&request(true))
        .send()
        .await
        .unwrap();
    let folded = fold(&frames(response).await);
    assert_eq!(folded.calls.len(), 1);
    assert_eq!(folded.calls[0].1, "get_weather");
    let received = upstream.received();
    assert_eq!(
        received[0].headers["authorization"],
        format!("Bearer {key}")
    );
    let log = stop(child);
    assert!(!log.contains(key), "the upstream key was logged:\n{log}");
    assert!(
        !log.contains("sk-what-the-app-sent"),
        "the client's key was logged:\n{log}"
    );
    // Bodies at trace level, and only there.
    assert!(log.contains("What is the weather in Paris?"), "{log}");
}

#[tokio::test]
async fn without_trace_logging_no_body_is_logged() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file)]).await;
    let (child, url) = start(upstream.base_url(), &[], &[("TOOLROUTER_LOG", "debug")]);
    let response = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let log = stop(child);
    assert!(!log.contains("What is the weather in Paris?"), "{log}");
    assert!(log.contains("proxy request"), "{log}");
}

#[tokio::test]
async fn with_a_token_every_request_needs_it() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file)]).await;
    let (child, url) = start(upstream.base_url(), &["--token", "tok-123"], &[]);
    let client = reqwest::Client::new();
    let response = client.get(format!("{url}/models")).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let response = client
        .post(format!("{url}/chat/completions"))
        .bearer_auth("tok-123")
        .json(&json!({"model": "m", "messages": [], "stream": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    stop(child);
}

#[test]
fn a_non_loopback_listen_needs_allow_remote_and_a_token() {
    let run = |extra: &[&str]| {
        Command::new(toolrouter_bin())
            .args([
                "proxy",
                "--listen",
                "0.0.0.0:0",
                "--upstream",
                "http://127.0.0.1:9/v1",
                "--provider",
                "vllm",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--allow-remote"));
    let output = run(&["--allow-remote"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--token"));
    // The client's key and a proxy token cannot both be `Authorization`.
    let output = run(&["--allow-remote", "--token", "t", "--forward-key"]);
    assert_eq!(output.status.code(), Some(2));
    // A connection must be given some time.
    let output = run(&["--connect-timeout", "0"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--connect-timeout"));
}

/// The `proxy request done` lines of a `--log-format json` log, as objects.
fn request_lines(log: &str) -> Vec<serde_json::Value> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| line["fields"]["message"] == "proxy request done")
        .collect()
}

#[tokio::test]
async fn json_logs_give_one_line_per_request_with_its_span() {
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
        Reply::json(429, &json!({"error": {"message": "slow down", "type": "rate_limit", "code": "rate_limited"}})),
        Reply::sse(recording("openai-compat.hermes-text.sse")),
    ])
    .await;
    let (child, url) = start(
        upstream.base_url(),
        &["--log-format", "json"],
        &[("TOOLROUTER_LOG", "info")],
    );
    let client = reqwest::Client::new();
    // Streamed, through the OpenAI door: the model wrote one Hermes call.
    let response = client
        .post(format!("{url}/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    assert_eq!(fold(&frames(response).await).calls.len(), 1);
    // In one piece, through the Anthropic door.
    let root = url.strip_suffix("/v1").unwrap();
    let response = client
        .post(format!("{root}/v1/messages"))
        .json(&json!({"model": "claude-like", "max_tokens": 64,
            "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // The upstream refuses.
    let response = client
        .post(format!("{url}/chat/completions"))
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    // Streamed, through the Responses door.
    let response = client
        .post(format!("{url}/responses"))
        .json(
            &json!({"model": "m", "input": "hi", "stream": true, "tools": [
            {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]}),
        )
        .send()
        .await
        .unwrap();
    assert!(
        response
            .text()
            .await
            .unwrap()
            .contains("response.completed")
    );
    let log = stop(child);
    let lines = request_lines(&log);
    assert_eq!(lines.len(), 4, "one line per request:\n{log}");
    let (streamed, message, refused) = (
        &lines[0]["fields"],
        &lines[1]["fields"],
        &lines[2]["fields"],
    );
    assert_eq!(streamed["door"], "chat_completions");
    assert_eq!(streamed["model"], "\"m\"");
    assert_eq!(streamed["stream"], true);
    assert_eq!(streamed["status"], 200);
    assert_eq!(streamed["upstream_status"], 200);
    assert_eq!(streamed["calls"], 1);
    assert_eq!(streamed["outcome"], "ok");
    // No server-side tools: the line says nothing of them.
    assert!(streamed.get("tool_calls").is_none(), "{streamed}");
    assert!(streamed.get("tool_ms").is_none(), "{streamed}");
    let head = streamed["upstream_head_ms"].as_f64().unwrap();
    let first = streamed["first_byte_ms"].as_f64().unwrap();
    let total = streamed["duration_ms"].as_f64().unwrap();
    assert!(0.0 < head && head <= first && first <= total, "{streamed}");
    // The line is written in the request's span.
    assert_eq!(lines[0]["span"]["name"], "proxy_request");
    assert_eq!(lines[0]["span"]["door"], "chat_completions");
    assert_eq!(message["door"], "messages");
    assert_eq!(message["stream"], false);
    assert_eq!(message["calls"], 0);
    assert_eq!(message["outcome"], "ok");
    assert_eq!(refused["status"], 429);
    assert_eq!(refused["upstream_status"], 429);
    assert_eq!(refused["outcome"], "rate_limited");
    assert!(refused["first_byte_ms"].is_null(), "{refused}");
    let responses = &lines[3]["fields"];
    assert_eq!(responses["door"], "responses");
    assert_eq!(responses["stream"], true);
    assert_eq!(responses["calls"], 1);
    assert_eq!(responses["outcome"], "ok");
}

#[tokio::test]
async fn a_client_that_leaves_mid_stream_is_logged_as_gone() {
    let frames = (0..400).map(|n| {
        let chunk = json!({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": {"content": format!("word{n} ")},
            "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    });
    let upstream = ReplayServer::start(vec![
        Reply::frames(frames).pause(std::time::Duration::from_millis(20)),
    ])
    .await;
    let (child, url) = start(
        upstream.base_url(),
        &["--log-format", "json"],
        &[("TOOLROUTER_LOG", "info")],
    );
    let mut response = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    assert!(response.chunk().await.unwrap().is_some());
    drop(response);
    assert!(
        upstream
            .wait_abandoned(std::time::Duration::from_secs(10))
            .await,
        "the upstream kept streaming to a client that left"
    );
    let log = stop(child);
    let lines = request_lines(&log);
    assert_eq!(lines.len(), 1, "{log}");
    assert_eq!(lines[0]["fields"]["outcome"], "client_gone", "{log}");
    assert_eq!(
        lines[0]["fields"]["status"],
        serde_json::Value::Null,
        "{log}"
    );
}

#[tokio::test]
async fn builtins_are_server_side_tools_the_proxy_runs() {
    let call = "<tool_call>{\"name\": \"calculate\", \"arguments\": {\"expression\": \"6*7\"}}</tool_call>";
    let upstream = ReplayServer::start(vec![
        crate::proxy_server_tools::turn(&[call], 1, 1),
        crate::proxy_server_tools::turn(&["42."], 1, 1),
    ])
    .await;
    let workspace = tempfile::tempdir().unwrap();
    let workspace = workspace.path().to_str().unwrap().to_owned();
    let (child, url) = start(
        upstream.base_url(),
        &["--builtins", "--workspace", &workspace, "--max-steps", "3"],
        &[],
    );
    let response = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .json(&request(true))
        .send()
        .await
        .unwrap();
    let folded = fold(&frames(response).await);
    assert_eq!(folded.content, "42.");
    assert!(folded.calls.is_empty());
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].body["messages"][2]["content"], "42");
    stop(child);
}

#[tokio::test]
async fn with_server_side_tools_the_line_counts_their_calls() {
    let calculate = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"2+2\"}}\n</tool_call>";
    let upstream = ReplayServer::start(vec![
        crate::proxy_server_tools::turn(&[calculate], 10, 5),
        crate::proxy_server_tools::turn(&["It is 4."], 20, 3),
        crate::proxy_server_tools::turn(&["Hello."], 5, 2),
    ])
    .await;
    let workspace = tempfile::tempdir().unwrap();
    let (child, url) = start(
        upstream.base_url(),
        &[
            "--builtins",
            "--workspace",
            workspace.path().to_str().unwrap(),
            "--log-format",
            "json",
        ],
        &[("TOOLROUTER_LOG", "info")],
    );
    let client = reqwest::Client::new();
    for _ in 0..2 {
        let response = client
            .post(format!("{url}/chat/completions"))
            .json(&request(false))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    let log = stop(child);
    let lines = request_lines(&log);
    assert_eq!(lines.len(), 2, "{log}");
    // The first request's model called `calculate` once; the second none.
    assert_eq!(lines[0]["fields"]["tool_calls"], 1, "{log}");
    assert!(lines[0]["fields"]["tool_ms"].as_f64().is_some(), "{log}");
    assert_eq!(lines[1]["fields"]["tool_calls"], 0, "{log}");
}
