//! The gateway against real upstream MCP servers: the npm `server-everything` and
//! `server-filesystem`, the `upstream_fixture` example (dynamic, slow and
//! malformed tool lists), and an in-process Streamable HTTP server.

// `ClientPeer` still speaks sampling and logging, which rmcp 3.x marks deprecated.
#![allow(deprecated)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, LoggingLevel,
};
use serde_json::{Value, json};
use toolrouter::{
    ClientPeer, Gateway, JsonObject, ToolContext, ToolError, ToolRegistry, ToolSource,
};
use toolrouter::{
    GatewayConfig, HttpTransport, StdioTransport, UpstreamConfig, UpstreamIssue, UpstreamState,
    UpstreamStatus, UpstreamTransport,
};

use crate::support::text_of;
use crate::support::{self, ext};

/// Generous guard against hangs; no test asserts on timing.
pub(crate) const HANG_GUARD: Duration = Duration::from_secs(60);

pub(crate) const EVERYTHING: &str = "@modelcontextprotocol/server-everything@2026.8.31";
pub(crate) const FILESYSTEM: &str = "@modelcontextprotocol/server-filesystem@2026.8.31";

/// The `upstream_fixture` example, built once per test run.
pub(crate) fn fixture_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let profile_dir = support::toolrouter_bin()
            .parent()
            .expect("bin dir")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target dir").to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut build = Command::new(cargo);
        build
            .args(["build", "--quiet", "--example", "upstream_fixture"])
            .arg("--target-dir")
            .arg(&target_dir);
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        let status = build
            .current_dir(support::repo_root())
            .status()
            .expect("run cargo build --example upstream_fixture");
        assert!(status.success(), "building upstream_fixture failed");
        profile_dir.join("examples").join("upstream_fixture")
    })
    .clone()
}

pub(crate) fn fixture(name: &str, mode: &str) -> UpstreamConfig {
    let bin = fixture_bin();
    UpstreamConfig::new(
        name,
        UpstreamTransport::Stdio(StdioTransport::new(bin.to_string_lossy(), [mode])),
    )
}

pub(crate) fn config(upstreams: Vec<UpstreamConfig>) -> GatewayConfig {
    let mut config = GatewayConfig::default();
    config.upstreams = upstreams;
    config.settings.restart.initial_backoff = Duration::from_millis(50);
    config
}

async fn start(config: &GatewayConfig) -> (Gateway, Arc<ToolRegistry>) {
    let registry = Arc::new(ToolRegistry::new());
    let gateway = tokio::time::timeout(HANG_GUARD, Gateway::start(config, registry.clone()))
        .await
        .expect("gateway started");
    (gateway, registry)
}

pub(crate) fn args(v: Value) -> JsonObject {
    v.as_object().cloned().expect("arguments object")
}

/// Validates and runs a registered tool the way the executor does.
pub(crate) async fn call_with(
    registry: &ToolRegistry,
    name: &str,
    arguments: Value,
    ctx: ToolContext,
) -> Result<CallToolResult, ToolError> {
    let tool = registry
        .get(name)
        .unwrap_or_else(|| panic!("`{name}` is registered"));
    let (arguments, valid) = tool.validator().validate(args(arguments));
    valid.map_err(ToolError::new)?;
    let handler = tool
        .handler()
        .expect("upstream tools have a handler")
        .clone();
    tokio::time::timeout(HANG_GUARD, handler.call(arguments, ctx))
        .await
        .expect("call finished")
}

pub(crate) async fn call(
    registry: &ToolRegistry,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, ToolError> {
    call_with(registry, name, arguments, ToolContext::new("call-1", name)).await
}

pub(crate) async fn wait_for(
    gateway: &Gateway,
    what: &str,
    done: impl FnMut(&[UpstreamStatus]) -> bool,
) {
    tokio::time::timeout(HANG_GUARD, gateway.wait_until(done))
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}: {:#?}", gateway.status()));
}

/// Calls a no-argument tool until it answers `expect`.
pub(crate) async fn wait_for_text(registry: &ToolRegistry, name: &str, expect: &str) {
    tokio::time::timeout(HANG_GUARD, async {
        loop {
            let out = call(registry, name, json!({})).await.expect(name);
            if text_of(&out) == expect {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("`{name}` never answered `{expect}`"));
}

pub(crate) fn state_of(gateway: &Gateway, name: &str) -> UpstreamState {
    gateway.upstream(name).expect("configured upstream").state
}

/// Records the progress a handler reports.
#[derive(Default)]
struct ProgressLog(Mutex<Vec<(f64, Option<f64>)>>);

#[async_trait]
impl ClientPeer for ProgressLog {
    async fn progress(&self, progress: f64, total: Option<f64>, _message: Option<String>) {
        self.0.lock().expect("lock").push((progress, total));
    }
    async fn log(&self, _level: LoggingLevel, _logger: Option<String>, _data: Value) {}
    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        Err(ToolError::new("no model"))
    }
    async fn elicit(&self, _params: ElicitRequestParams) -> Result<ElicitResult, ToolError> {
        Err(ToolError::new("no user"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_of_everything_and_filesystem_through_the_registry() {
    let everything = ext::npm_bin(EVERYTHING, "mcp-server-everything");
    let filesystem = ext::npm_bin(FILESYSTEM, "mcp-server-filesystem");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical tempdir");
    std::fs::write(root.join("notes.txt"), "first line\nsecond line\n").expect("write file");
    std::fs::create_dir(root.join("sub")).expect("mkdir");

    let config = config(vec![
        UpstreamConfig::new(
            "everything",
            UpstreamTransport::Stdio(StdioTransport::new(everything.to_string_lossy(), ["stdio"])),
        ),
        UpstreamConfig::new(
            "fs",
            UpstreamTransport::Stdio(StdioTransport::new(
                filesystem.to_string_lossy(),
                [root.to_string_lossy().into_owned()],
            )),
        ),
    ]);
    let (gateway, registry) = start(&config).await;
    assert_eq!(
        state_of(&gateway, "everything"),
        UpstreamState::Ready,
        "{:#?}",
        gateway.status()
    );
    assert_eq!(
        state_of(&gateway, "fs"),
        UpstreamState::Ready,
        "{:#?}",
        gateway.status()
    );

    let sum = registry
        .get("everything__get-sum")
        .expect("everything__get-sum");
    assert_eq!(sum.source(), &ToolSource::Upstream("everything".to_owned()));
    let status = gateway.upstream("everything").expect("status");
    assert!(
        status
            .tools
            .iter()
            .any(|t| t.public_name == "everything__get-sum" && t.upstream_name == "get-sum")
    );

    let out = call(&registry, "everything__get-sum", json!({"a": 2, "b": 40}))
        .await
        .expect("get-sum");
    assert_ne!(out.is_error, Some(true));
    assert_eq!(text_of(&out), "The sum of 2 and 40 is 42.");

    let out = call(
        &registry,
        "everything__echo",
        json!({"message": "hi there"}),
    )
    .await
    .expect("echo");
    assert_eq!(text_of(&out), "Echo: hi there");

    let notes = root.join("notes.txt");
    let out = call(
        &registry,
        "fs__read_text_file",
        json!({"path": notes.to_string_lossy()}),
    )
    .await
    .expect("read_text_file");
    assert_eq!(text_of(&out), "first line\nsecond line\n");
    let out = call(
        &registry,
        "fs__read_text_file",
        json!({"path": notes.to_string_lossy(), "head": 1}),
    )
    .await
    .expect("read_text_file head");
    assert_eq!(text_of(&out), "first line");

    let out = call(
        &registry,
        "fs__list_directory",
        json!({"path": root.to_string_lossy()}),
    )
    .await
    .expect("list_directory");
    let listing = text_of(&out);
    let mut lines: Vec<&str> = listing.lines().map(str::trim).collect();
    lines.sort();
    assert_eq!(lines, vec!["[DIR] sub", "[FILE] notes.txt"]);

    // Outside the allowed directory the upstream answers with an error result,
    // which is passed through as such.
    let out = call(
        &registry,
        "fs__read_text_file",
        json!({"path": "/etc/hostname"}),
    )
    .await;
    match out {
        Ok(result) => assert_eq!(result.is_error, Some(true), "{}", text_of(&result)),
        Err(e) => assert!(e.message().contains("upstream `fs`"), "{e}"),
    }

    // Upstream progress reaches the caller's context.
    let log = Arc::new(ProgressLog::default());
    let ctx = ToolContext::new("call-2", "everything__trigger-long-running-operation")
        .with_peer(log.clone());
    let out = call_with(
        &registry,
        "everything__trigger-long-running-operation",
        json!({"duration": 0.6, "steps": 3}),
        ctx,
    )
    .await
    .expect("long-running operation");
    assert!(text_of(&out).contains("Steps: 3"), "{}", text_of(&out));
    // Progress sent before the result is relayed in order; the last one races
    // the result inside rmcp (each notification runs on its own task), so it
    // may or may not be seen.
    let seen = log.0.lock().expect("lock").clone();
    let expected = [(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))];
    assert!(seen.len() >= 2 && expected.starts_with(&seen), "{seen:?}");

    gateway.shutdown().await;
    assert!(
        registry.get("everything__get-sum").is_none(),
        "tools are removed at shutdown"
    );
    assert_eq!(state_of(&gateway, "fs"), UpstreamState::Stopped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paginated_lists_are_read_to_the_end() {
    let (gateway, registry) = start(&config(vec![fixture("fx", "serve")])).await;
    let status = gateway.upstream("fx").expect("status");
    let names: Vec<&str> = status
        .tools
        .iter()
        .map(|t| t.public_name.as_str())
        .collect();
    // Seven tools, served two per page.
    assert_eq!(
        names,
        vec![
            "fx__add_tool",
            "fx__cancellations",
            "fx__echo",
            "fx__freeze",
            "fx__pid",
            "fx__remove_tool",
            "fx__slow"
        ]
    );
    let out = call(&registry, "fx__echo", json!({"text": "paged"}))
        .await
        .expect("echo");
    assert_eq!(text_of(&out), "paged");
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_an_upstream_mid_call_fails_the_call_and_it_comes_back() {
    let (gateway, registry) = start(&config(vec![fixture("fx", "serve")])).await;
    let pid = gateway
        .upstream("fx")
        .and_then(|s| s.pid)
        .expect("child pid");
    let reported = call(&registry, "fx__pid", json!({})).await.expect("pid");
    assert_eq!(text_of(&reported), pid.to_string());

    let log = Arc::new(ProgressLog::default());
    let ctx = ToolContext::new("slow-1", "fx__slow").with_peer(log.clone());
    let registry2 = registry.clone();
    let in_flight = tokio::spawn(async move {
        call_with(&registry2, "fx__slow", json!({"seconds": 600}), ctx).await
    });
    // The call is running once progress arrives.
    tokio::time::timeout(HANG_GUARD, async {
        while log.0.lock().expect("lock").is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("progress from the slow call");

    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let outcome = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("the in-flight call ends promptly instead of hanging")
        .expect("task");
    let error = outcome.expect_err("a killed upstream gives an error result");
    assert!(error.message().contains("upstream `fx`"), "{error}");

    wait_for(&gateway, "the restart", |s| {
        s[0].state == UpstreamState::Ready && s[0].connections == 2
    })
    .await;
    let new_pid = gateway.upstream("fx").and_then(|s| s.pid).expect("new pid");
    assert_ne!(new_pid, pid);
    let out = call(&registry, "fx__echo", json!({"text": "back"}))
        .await
        .expect("echo after restart");
    assert_eq!(text_of(&out), "back");
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_server_everything_mid_call_fails_the_call_and_it_comes_back() {
    let everything = ext::npm_bin(EVERYTHING, "mcp-server-everything");
    let (gateway, registry) = start(&config(vec![UpstreamConfig::new(
        "everything",
        UpstreamTransport::Stdio(StdioTransport::new(everything.to_string_lossy(), ["stdio"])),
    )]))
    .await;
    let pid = gateway
        .upstream("everything")
        .and_then(|s| s.pid)
        .expect("pid");
    let log = Arc::new(ProgressLog::default());
    let ctx = ToolContext::new("long-1", "everything__trigger-long-running-operation")
        .with_peer(log.clone());
    let registry2 = registry.clone();
    let in_flight = tokio::spawn(async move {
        call_with(
            &registry2,
            "everything__trigger-long-running-operation",
            json!({"duration": 600, "steps": 6000}),
            ctx,
        )
        .await
    });
    tokio::time::timeout(HANG_GUARD, async {
        while log.0.lock().expect("lock").is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("progress from the long-running operation");
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let error = tokio::time::timeout(Duration::from_secs(5), in_flight)
        .await
        .expect("the in-flight call ends promptly instead of hanging")
        .expect("task")
        .expect_err("a killed upstream gives an error result");
    assert!(error.message().contains("upstream `everything`"), "{error}");
    wait_for(&gateway, "the restart", |s| {
        s[0].state == UpstreamState::Ready && s[0].connections == 2
    })
    .await;
    let out = call(&registry, "everything__get-sum", json!({"a": 1, "b": 2}))
        .await
        .expect("get-sum after the restart");
    assert_eq!(text_of(&out), "The sum of 1 and 2 is 3.");
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_adds_and_removes_tools() {
    let (gateway, registry) = start(&config(vec![fixture("fx", "serve")])).await;
    let mut changes = registry.subscribe();
    assert!(registry.get("fx__extra").is_none());
    call(&registry, "fx__add_tool", json!({"name": "extra"}))
        .await
        .expect("add_tool");
    wait_for(&gateway, "the added tool", |s| {
        s[0].tools.iter().any(|t| t.upstream_name == "extra")
    })
    .await;
    let out = call(&registry, "fx__extra", json!({}))
        .await
        .expect("added tool runs");
    assert_eq!(text_of(&out), "extra ran");
    let change = tokio::time::timeout(HANG_GUARD, async {
        loop {
            match changes.recv().await {
                Ok(c) if c.name() == "fx__extra" => return c,
                Ok(_) => continue,
                Err(e) => panic!("change feed: {e}"),
            }
        }
    })
    .await
    .expect("a registry change for the new tool");
    assert_eq!(
        change,
        toolrouter::RegistryChange::Added("fx__extra".to_owned())
    );

    let stale = registry.get("fx__extra").expect("fx__extra");
    call(&registry, "fx__remove_tool", json!({"name": "extra"}))
        .await
        .expect("remove_tool");
    wait_for(&gateway, "the removed tool", |s| {
        !s[0].tools.iter().any(|t| t.upstream_name == "extra")
    })
    .await;
    assert!(registry.get("fx__extra").is_none());
    assert!(registry.get("fx__echo").is_some(), "the other tools stay");
    // A caller still holding the old entry cannot reach a tool the upstream no
    // longer advertises.
    let error = stale
        .handler()
        .expect("handler")
        .call(JsonObject::new(), ToolContext::new("stale", "fx__extra"))
        .await
        .expect_err("not advertised any more");
    assert_eq!(
        error.message(),
        "upstream `fx` no longer advertises `extra`"
    );
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_reaches_the_upstream_call() {
    let (gateway, registry) = start(&config(vec![fixture("fx", "serve")])).await;
    let log = Arc::new(ProgressLog::default());
    let cancel = tokio_util::sync::CancellationToken::new();
    let ctx = ToolContext::new("slow-2", "fx__slow")
        .with_peer(log.clone())
        .with_cancellation(cancel.clone());
    let registry2 = registry.clone();
    let in_flight = tokio::spawn(async move {
        call_with(&registry2, "fx__slow", json!({"seconds": 600}), ctx).await
    });
    tokio::time::timeout(HANG_GUARD, async {
        while log.0.lock().expect("lock").is_empty() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("progress");
    cancel.cancel();
    let error = tokio::time::timeout(HANG_GUARD, in_flight)
        .await
        .expect("cancelled call ends")
        .expect("task")
        .expect_err("cancelled");
    assert!(error.message().contains("cancelled"), "{error}");
    // The connection is still good.
    let out = call(&registry, "fx__echo", json!({"text": "still here"}))
        .await
        .expect("echo");
    assert_eq!(text_of(&out), "still here");
    assert_eq!(gateway.upstream("fx").expect("status").connections, 1);
    // The upstream saw `notifications/cancelled` and stopped the call.
    wait_for_text(&registry, "fx__cancellations", "1").await;
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn name_collisions_are_reported_never_shadowed() {
    let registry = Arc::new(ToolRegistry::new());
    // A local tool holds the name the first upstream's `echo` would get.
    registry
        .register_fn(
            rmcp::model::Tool::new(
                "a__echo",
                "local echo",
                Arc::new(args(json!({"type": "object"}))),
            ),
            |_args, _ctx| async { Ok(CallToolResult::success(vec![ContentBlock::text("local")])) },
        )
        .expect("local tool");
    // `a` uses the default prefix; `b` uses `a` as its prefix, so every one of
    // its tools collides with one of `a`'s (or with the local tool).
    let config = config(vec![
        fixture("a", "serve"),
        fixture("b", "serve").with_prefix("a"),
    ]);
    let gateway = tokio::time::timeout(HANG_GUARD, Gateway::start(&config, registry.clone()))
        .await
        .expect("started");
    let status = gateway.status();
    for s in &status {
        assert_eq!(s.state, UpstreamState::Ready, "{s:#?}");
    }
    // The local tool is untouched and both upstreams report it.
    let out = call(&registry, "a__echo", json!({}))
        .await
        .expect("local echo");
    assert_eq!(text_of(&out), "local");
    assert_eq!(
        registry.get("a__echo").expect("a__echo").source(),
        &ToolSource::Local
    );
    for s in &status {
        assert!(
            s.issues.contains(&UpstreamIssue::NameCollision {
                public_name: "a__echo".to_owned(),
                upstream_tool: "echo".to_owned(),
                holder: ToolSource::Local,
            }),
            "{s:#?}"
        );
    }
    // Every other name is held by exactly one upstream; the other reports it.
    for tool in [
        "add_tool",
        "cancellations",
        "freeze",
        "pid",
        "remove_tool",
        "slow",
    ] {
        let public = format!("a__{tool}");
        let ToolSource::Upstream(holder) =
            registry.get(&public).expect("registered").source().clone()
        else {
            panic!("{public} should come from an upstream");
        };
        let loser = status
            .iter()
            .find(|s| s.name != holder)
            .expect("the other upstream");
        assert!(
            loser.issues.contains(&UpstreamIssue::NameCollision {
                public_name: public.clone(),
                upstream_tool: tool.to_owned(),
                holder: ToolSource::Upstream(holder.clone()),
            }),
            "{loser:#?}"
        );
        assert!(!loser.tools.iter().any(|t| t.public_name == public));
    }
    gateway.shutdown().await;
    assert_eq!(
        registry
            .get("a__echo")
            .expect("local tool survives")
            .source(),
        &ToolSource::Local
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_tool_list_is_refused_and_the_others_keep_working() {
    let config = config(vec![
        fixture("good", "serve"),
        fixture("nojson", "malformed-json"),
        fixture("noobj", "malformed-schema"),
        fixture("endless", "endless-pages"),
    ]);
    let (gateway, registry) = start(&config).await;
    assert_eq!(state_of(&gateway, "good"), UpstreamState::Ready);
    for name in ["nojson", "noobj", "endless"] {
        let UpstreamState::Refused(why) = state_of(&gateway, name) else {
            panic!("{name} should be refused: {:#?}", gateway.status());
        };
        assert!(
            why.contains(&format!("malformed tools list from upstream `{name}`")),
            "{why}"
        );
        // Not even its well-formed tool is registered.
        assert!(registry.get(&format!("{name}__fine")).is_none());
    }
    let UpstreamState::Refused(why) = state_of(&gateway, "noobj") else {
        unreachable!()
    };
    assert!(
        why.contains("not_object"),
        "the message names the bad tool: {why}"
    );
    let UpstreamState::Refused(why) = state_of(&gateway, "endless") else {
        unreachable!()
    };
    assert!(why.ends_with("more than 100 pages"), "{why}");
    let out = call(&registry, "good__echo", json!({"text": "ok"}))
        .await
        .expect("echo");
    assert_eq!(text_of(&out), "ok");
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_child_processes() {
    let (gateway, _registry) = start(&config(vec![fixture("fx", "serve")])).await;
    let pid = gateway.upstream("fx").and_then(|s| s.pid).expect("pid");
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    assert!(proc_dir.exists());
    tokio::time::timeout(HANG_GUARD, gateway.shutdown())
        .await
        .expect("shutdown");
    // Reaped, not a zombie: the /proc entry is gone.
    tokio::time::timeout(HANG_GUARD, async {
        while proc_dir.exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the child exited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unstartable_upstream_keeps_retrying_while_the_others_work() {
    let config = config(vec![
        fixture("good", "serve"),
        UpstreamConfig::new(
            "ghost",
            UpstreamTransport::Stdio(StdioTransport::new(
                "/nonexistent/toolrouter-ghost",
                Vec::<String>::new(),
            )),
        ),
    ]);
    let (gateway, registry) = start(&config).await;
    match state_of(&gateway, "ghost") {
        UpstreamState::Restarting { last_error, .. } => {
            assert!(
                last_error.contains("cannot start `/nonexistent/toolrouter-ghost`"),
                "{last_error}"
            )
        }
        other => panic!("ghost: {other}"),
    }
    wait_for(
        &gateway,
        "a few retries",
        |s| matches!(&s[1].state, UpstreamState::Restarting { attempt, .. } if *attempt >= 3),
    )
    .await;
    let out = call(&registry, "good__echo", json!({"text": "fine"}))
        .await
        .expect("echo");
    assert_eq!(text_of(&out), "fine");
    gateway.shutdown().await;
    assert_eq!(state_of(&gateway, "ghost"), UpstreamState::Stopped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_upstreams_password_never_shows_in_its_state() {
    // A port nothing listens on: the handshake fails, and the error quotes
    // the URL.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://agent:s3cret-pw@127.0.0.1:{port}/mcp");
    let config = config(vec![UpstreamConfig::new(
        "remote",
        UpstreamTransport::Http(HttpTransport::new(url.as_str())),
    )]);
    let (gateway, _registry) = start(&config).await;
    match state_of(&gateway, "remote") {
        UpstreamState::Restarting { last_error, .. } => {
            assert!(!last_error.contains("s3cret"), "{last_error}");
            assert!(
                last_error.contains(&format!("http://***@127.0.0.1:{port}/mcp")),
                "{last_error}"
            );
        }
        other => panic!("remote: {other}"),
    }
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_upstream_with_headers_and_a_bearer_token() {
    let seen = Arc::new(Mutex::new(Vec::<(String, String)>::new()));
    let url = http_upstream::serve(seen.clone()).await;
    let transport = HttpTransport::new(url)
        .with_header("X-Tenant", "acme")
        .with_bearer_token("s3cret");
    let (gateway, registry) = start(&config(vec![UpstreamConfig::new(
        "web",
        UpstreamTransport::Http(transport),
    )]))
    .await;
    assert_eq!(
        state_of(&gateway, "web"),
        UpstreamState::Ready,
        "{:#?}",
        gateway.status()
    );
    let out = call(&registry, "web__whoami", json!({}))
        .await
        .expect("whoami");
    assert_eq!(text_of(&out), "Bearer s3cret / acme");
    let seen = seen.lock().expect("lock").clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter()
            .all(|(auth, tenant)| auth == "Bearer s3cret" && tenant == "acme"),
        "{seen:?}"
    );
    gateway.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_upstream_that_goes_away_is_reconnected() {
    let seen = http_upstream::Seen::default();
    let any_port = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let (url, stop) = http_upstream::serve_at(any_port, seen.clone()).await;
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("addr");
    let (gateway, registry) = start(&config(vec![UpstreamConfig::new(
        "web",
        UpstreamTransport::Http(HttpTransport::new(url)),
    )]))
    .await;
    call(&registry, "web__whoami", json!({}))
        .await
        .expect("whoami");

    stop.cancel();
    // Once the server is gone calls fail (they are not retried: tools may have
    // side effects), and the gateway notices. The server closes asynchronously,
    // so a call may still get through first.
    let error = tokio::time::timeout(HANG_GUARD, async {
        loop {
            let tool = registry.get("web__whoami")?;
            let handler = tool.handler().expect("handler").clone();
            match handler
                .call(JsonObject::new(), ToolContext::new("c", "web__whoami"))
                .await
            {
                Err(e) => return Some(e),
                Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .expect("calls start failing");
    if let Some(error) = error {
        assert!(error.message().contains("upstream `web`"), "{error}");
    }
    wait_for(&gateway, "the loss to be noticed", |s| {
        matches!(s[0].state, UpstreamState::Restarting { .. })
    })
    .await;

    let (_url, stop_again) = http_upstream::serve_at(addr, seen).await;
    wait_for(&gateway, "the reconnection", |s| {
        s[0].state == UpstreamState::Ready && s[0].connections == 2
    })
    .await;
    let out = call(&registry, "web__whoami", json!({}))
        .await
        .expect("whoami after reconnecting");
    assert_eq!(text_of(&out), " / ");
    gateway.shutdown().await;
    stop_again.cancel();
}

#[test]
fn the_upstreams_command_lists_tools_with_their_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("mcp.json");
    let bin = fixture_bin();
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "fx": {"command": bin.to_string_lossy(), "args": ["serve"]},
            "bad": {"command": bin.to_string_lossy(), "args": ["malformed-schema"]}
        }})
        .to_string(),
    )
    .expect("write config");
    let out = Command::new(support::toolrouter_bin())
        .args(["upstreams", "--config"])
        .arg(&file)
        .output()
        .expect("run toolrouter upstreams");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "a refused upstream fails the command: {stdout}"
    );
    assert!(stdout.contains("upstream fx: ready (7 tools"), "{stdout}");
    assert!(
        stdout.contains("upstream bad: refused: malformed tools list from upstream `bad`"),
        "{stdout}"
    );
    let echo_line = stdout
        .lines()
        .find(|l| l.starts_with("fx__echo "))
        .expect("fx__echo listed");
    assert!(echo_line.contains("fx:echo"), "{echo_line}");
    assert!(echo_line.contains("Echoes `text`."), "{echo_line}");
    assert!(stderr.contains("1 of 2 upstreams"), "{stderr}");
}

/// A Streamable HTTP MCP server in this process, recording the
/// `Authorization` and `X-Tenant` headers of every request.
mod http_upstream {
    use std::sync::{Arc, Mutex};

    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::RequestContext;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use rmcp::{ErrorData, RoleServer, ServerHandler};

    pub(super) type Seen = Arc<Mutex<Vec<(String, String)>>>;

    #[derive(Clone)]
    struct WhoAmI;

    fn header(parts: &http::request::Parts, name: &str) -> String {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    }

    impl ServerHandler for WhoAmI {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let schema = serde_json::json!({"type": "object"});
            let schema = Arc::new(schema.as_object().cloned().unwrap_or_default());
            Ok(ListToolsResult::with_all_items(vec![Tool::new(
                "whoami",
                "Echoes the caller's credentials.",
                schema,
            )]))
        }

        async fn call_tool(
            &self,
            _request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let parts = context
                .extensions
                .get::<http::request::Parts>()
                .ok_or_else(|| ErrorData::internal_error("no HTTP request parts", None))?;
            let text = format!(
                "{} / {}",
                header(parts, "authorization"),
                header(parts, "x-tenant")
            );
            Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(text),
            ])))
        }
    }

    /// Serves on `addr` (port 0 for any) until the token is cancelled; returns
    /// the endpoint URL.
    pub(super) async fn serve_at(
        addr: std::net::SocketAddr,
        seen: Seen,
    ) -> (String, tokio_util::sync::CancellationToken) {
        let stop = tokio_util::sync::CancellationToken::new();
        let mut config = StreamableHttpServerConfig::default();
        config.cancellation_token = stop.clone();
        let service = StreamableHttpService::new(
            || Ok(WhoAmI),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let recorder = axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let seen = seen.clone();
                async move {
                    let entry = {
                        let headers = request.headers();
                        let get = |name: &str| {
                            headers
                                .get(name)
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or("")
                                .to_owned()
                        };
                        (get("authorization"), get("x-tenant"))
                    };
                    seen.lock().expect("lock").push(entry);
                    next.run(request).await
                }
            },
        );
        let app = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(recorder);
        let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let shutdown = stop.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
        });
        (format!("http://{addr}/mcp"), stop)
    }

    pub(super) async fn serve(seen: Seen) -> String {
        let any_port = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        serve_at(any_port, seen).await.0
    }
}
