//! Upstreams never block the server: a silent upstream
//! holds up neither start-up nor the other upstreams, connect timeouts are
//! per upstream, and a frozen upstream is found (by a call its caller stopped
//! waiting for, or by the periodic ping) and restarted, its in-flight calls
//! failing at once.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolrouter::{Gateway, ToolContext, ToolRegistry, UpstreamState, UpstreamStatus};

use crate::gateway::{
    HANG_GUARD, call, call_with, config, fixture, fixture_bin, state_of, wait_for,
};
use crate::support::{text_of, toolrouter_bin};

fn ready_with(name: &'static str, connections: u32) -> impl FnMut(&[UpstreamStatus]) -> bool {
    move |all| {
        all.iter().any(|u| {
            u.name == name && u.state == UpstreamState::Ready && u.connections >= connections
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_never_answers_holds_nothing_up() {
    // `mute` would hold a waiting start for ten minutes.
    let mute = fixture("mute", "mute").with_connect_timeout(Duration::from_secs(600));
    let config = config(vec![mute, fixture("fx", "serve")]);
    let registry = Arc::new(ToolRegistry::new());
    let mut changes = registry.subscribe();
    let gateway = Gateway::spawn(&config, registry.clone());
    assert_eq!(state_of(&gateway, "mute"), UpstreamState::Connecting);
    wait_for(&gateway, "fx connected", ready_with("fx", 1)).await;
    // Its tools arrived while `mute` still waits, and the registry said so.
    assert_eq!(state_of(&gateway, "mute"), UpstreamState::Connecting);
    assert!(
        changes.try_recv().is_ok(),
        "the registry announced fx's tools"
    );
    let out = call(&registry, "fx__echo", json!({"text": "at once"}))
        .await
        .expect("echo");
    assert_eq!(text_of(&out), "at once");
    assert!(
        registry
            .list()
            .iter()
            .all(|t| !t.name().starts_with("mute"))
    );
    tokio::time::timeout(HANG_GUARD, gateway.shutdown())
        .await
        .expect("shutdown does not wait for the connect timeout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_timeouts_are_per_upstream() {
    let mute = fixture("mute", "mute").with_connect_timeout(Duration::from_millis(200));
    let config = config(vec![mute]);
    let gateway = Gateway::spawn(&config, Arc::new(ToolRegistry::new()));
    tokio::time::timeout(HANG_GUARD, gateway.first_attempts())
        .await
        .expect("the first attempt ends at the upstream's own timeout");
    match state_of(&gateway, "mute") {
        UpstreamState::Restarting { last_error, .. } => {
            assert!(
                last_error.contains("no answer within 200ms"),
                "{last_error}"
            );
        }
        other => panic!("mute: {other}"),
    }
    gateway.shutdown().await;
}

/// The `pid` tool's answer.
async fn pid(registry: &ToolRegistry) -> String {
    text_of(&call(registry, "fx__pid", json!({})).await.expect("pid"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_upstream_is_restarted_after_a_call_its_caller_gave_up_on() {
    let mut config = config(vec![fixture("fx", "serve")]);
    // Only the abandoned call can reveal the freeze here.
    config.settings.ping_interval = Duration::from_secs(3600);
    config.settings.ping_timeout = Duration::from_millis(300);
    let registry = Arc::new(ToolRegistry::new());
    let gateway = Gateway::start(&config, registry.clone()).await;
    let before = pid(&registry).await;
    // The caller's deadline (the executor's timeout) drops the call.
    let frozen = tokio::time::timeout(
        Duration::from_millis(300),
        call_with(
            &registry,
            "fx__freeze",
            json!({}),
            ToolContext::new("f", "fx__freeze"),
        ),
    )
    .await;
    assert!(frozen.is_err(), "freeze never answers: {frozen:?}");
    wait_for(&gateway, "fx restarted", ready_with("fx", 2)).await;
    let after = pid(&registry).await;
    assert_ne!(before, after, "a new process serves fx");
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_upstream_is_found_by_its_ping_and_its_calls_fail_at_once() {
    let mut config = config(vec![fixture("fx", "serve")]);
    config.settings.ping_interval = Duration::from_millis(200);
    config.settings.ping_timeout = Duration::from_millis(200);
    let registry = Arc::new(ToolRegistry::new());
    let gateway = Gateway::start(&config, registry.clone()).await;
    let before = pid(&registry).await;
    // Nobody gives up on this call: the ping must find the freeze, and the
    // call must then fail instead of waiting forever (HANG_GUARD in call_with).
    let frozen = call(&registry, "fx__freeze", json!({})).await;
    let error = frozen.expect_err("a frozen upstream's call fails");
    assert!(
        error
            .to_string()
            .contains("closed the connection during the call"),
        "{error}"
    );
    wait_for(&gateway, "fx restarted", ready_with("fx", 2)).await;
    assert_ne!(before, pid(&registry).await);
    gateway.shutdown().await;
}

/// Reads `child`'s stdout lines on a thread; `recv` waits at most HANG_GUARD.
fn lines_of(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// Runs `toolrouter serve --stdio` on a `toolrouter.toml` holding `servers`
/// with `extra` flags, sends `initialize` then each of `requests` (ids from 2),
/// and returns their replies in order; each is awaited at most HANG_GUARD.
fn serve_stdio_session(servers: &str, extra: &[&str], requests: &[Value]) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("toolrouter.toml");
    let bin = Value::String(fixture_bin().to_string_lossy().into_owned());
    std::fs::write(&config, servers.replace("FIXTURE", &bin.to_string())).expect("write config");
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--stdio", "--config"])
        .arg(&config)
        .arg("--workspace")
        .arg(dir.path())
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = lines_of(child.stdout.take().expect("stdout"));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let mut replies = Vec::new();
    let mut send = |message: &Value| {
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    };
    send(&initialize);
    send(&initialized);
    let wait_for = |id: usize| loop {
        let line = lines
            .recv_timeout(HANG_GUARD)
            .unwrap_or_else(|_| panic!("no reply {id} in time"));
        let reply: Value = serde_json::from_str(&line).expect("json");
        if reply["id"] == id {
            return reply;
        }
    };
    wait_for(1);
    for (n, request) in requests.iter().enumerate() {
        let mut request = request.clone();
        request["jsonrpc"] = json!("2.0");
        request["id"] = json!(n + 2);
        send(&request);
        replies.push(wait_for(n + 2));
    }
    drop(stdin);
    let deadline = std::time::Instant::now() + HANG_GUARD;
    while child.try_wait().expect("wait").is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve did not exit when its input closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    replies
}

fn tool_names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("a tools/list result: {list}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn serve_answers_at_once_while_an_upstream_never_answers() {
    // A start that waited for `mute` would take ten minutes.
    let servers =
        "[mcpServers.mute]\ncommand = FIXTURE\nargs = [\"mute\"]\nconnect_timeout_secs = 600\n";
    let replies = serve_stdio_session(
        servers,
        &["--upstream-wait", "0"],
        &[
            json!({"method": "tools/list"}),
            json!({"method": "tools/call", "params": {"name": "list_files", "arguments": {"path": "."}}}),
        ],
    );
    let names = tool_names(&replies[0]);
    assert!(names.iter().any(|n| n == "read_file"), "{names:?}");
    assert!(names.iter().all(|n| !n.starts_with("mute")), "{names:?}");
    assert_eq!(
        replies[1]["result"]["isError"],
        json!(false),
        "{}",
        replies[1]
    );
}

#[test]
fn the_first_tools_list_waits_for_upstreams_first_connection() {
    // The gate opens when `fx` has connected (or after the bound, which a
    // passing run never reaches: HANG_GUARD is shorter).
    let servers = "[mcpServers.fx]\ncommand = FIXTURE\nargs = [\"serve\"]\n";
    let replies = serve_stdio_session(
        servers,
        &["--upstream-wait", "600"],
        &[json!({"method": "tools/list"})],
    );
    let names = tool_names(&replies[0]);
    assert!(names.iter().any(|n| n == "fx__echo"), "{names:?}");
    assert!(names.iter().any(|n| n == "read_file"), "{names:?}");
}
