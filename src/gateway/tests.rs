//! Unit tests of configuration reading, naming and tool-list admission.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{CallToolResult, Tool};
use serde_json::json;

use super::admit::{AdmitRules, admit_tools};
use super::*;
use crate::core::JsonObject;
use crate::registry::{ToolContext, ToolError, ToolHandler, ToolSource, validate_tool_name};

// ---- configuration ----

fn json_config(text: &str) -> Result<GatewayConfig, ConfigError> {
    GatewayConfig::from_json_str(text, Path::new("/etc/mcp/claude_desktop_config.json"))
}

fn toml_config(text: &str) -> Result<GatewayConfig, ConfigError> {
    GatewayConfig::from_toml_str(text, Path::new("/srv/app/toolrouter.toml"))
}

/// Checks that a file is refused with `key` named and `problem` in the message.
fn check_invalid(result: Result<GatewayConfig, ConfigError>, key: &str, problem: &str) {
    match result {
        Err(ConfigError::Invalid {
            key: got_key,
            problem: got_problem,
            ..
        }) => {
            assert_eq!(got_key, key);
            assert!(
                got_problem.contains(problem),
                "`{got_problem}` should mention `{problem}`"
            );
        }
        other => panic!("expected an error about `{key}`, got {other:?}"),
    }
}

#[test]
fn claude_desktop_json() {
    let config = json_config(
        r#"{
          "globalShortcut": "Ctrl+Space",
          "mcpServers": {
            "filesystem": {
              "command": "npx",
              "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
              "env": {"DEBUG": "1"},
              "cwd": "work"
            },
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                       "headers": {"X-Team": "blue"}},
            "off": {"command": "nothing", "disabled": true},
            "plain-url": {"url": "http://127.0.0.1:9000/mcp", "autoApprove": ["x"]}
          }
        }"#,
    )
    .expect("valid");
    let names: Vec<&str> = config.upstreams.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "remote", "plain-url"]);
    let expected_fs = StdioTransport::new(
        "npx",
        [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/Users/me/Desktop",
        ],
    )
    .with_env("DEBUG", "1")
    .with_cwd("/etc/mcp/work");
    assert_eq!(
        config.upstreams[0].transport,
        UpstreamTransport::Stdio(expected_fs)
    );
    assert_eq!(
        config.upstreams[1].transport,
        UpstreamTransport::Http(
            HttpTransport::new("https://mcp.example.com/mcp").with_header("X-Team", "blue")
        )
    );
    assert_eq!(
        config.upstreams[2].transport,
        UpstreamTransport::Http(HttpTransport::new("http://127.0.0.1:9000/mcp"))
    );
    assert_eq!(config.settings, GatewaySettings::default());
    assert_eq!(config.builtins, None);
}

#[test]
fn vs_code_servers_key() {
    let config = json_config(r#"{"servers": {"git": {"type": "stdio", "command": "mcp-git"}}}"#)
        .expect("valid");
    assert_eq!(
        config.upstreams,
        vec![UpstreamConfig::new(
            "git",
            UpstreamTransport::Stdio(StdioTransport::new("mcp-git", Vec::<String>::new()))
        )]
    );
}

#[test]
fn toolrouter_toml_with_settings() {
    let config = toml_config(
        r#"
        workspace = "ws"
        builtins = ["read_file", "list_dir"]
        timeout_secs = 12.5
        connect_timeout_secs = 5

        [namespace]
        separator = "-"
        prefix = "none"

        [limits]
        max_description_chars = 100
        max_tools_per_upstream = 7

        [restart]
        initial_backoff_ms = 10
        max_backoff_ms = 1000

        [mcpServers.fs]
        command = "mcp-fs"
        args = ["/data"]
        timeout_secs = 3
        prefix = "files"

        [mcpServers.api]
        url = "https://api.example.com/mcp"
        bearer_token = "tok"
        "#,
    )
    .expect("valid");
    assert_eq!(config.workspace, Some(PathBuf::from("/srv/app/ws")));
    assert_eq!(
        config.builtins,
        Some(vec!["read_file".to_owned(), "list_dir".to_owned()])
    );
    let s = &config.settings;
    assert_eq!(s.timeout, Some(Duration::from_millis(12_500)));
    assert_eq!(s.connect_timeout, Duration::from_secs(5));
    assert_eq!(
        s.naming,
        NamingConfig::default()
            .with_separator("-")
            .with_prefix(PrefixMode::None)
    );
    assert_eq!(s.max_description_chars, 100);
    assert_eq!(s.max_tools_per_upstream, 7);
    assert_eq!(s.restart.initial_backoff, Duration::from_millis(10));
    assert_eq!(s.restart.max_backoff, Duration::from_secs(1));
    // TOML tables come in name order.
    let names: Vec<&str> = config.upstreams.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["api", "fs"]);
    assert_eq!(
        config.upstreams[1],
        UpstreamConfig::new(
            "fs",
            UpstreamTransport::Stdio(StdioTransport::new("mcp-fs", ["/data"]))
        )
        .with_timeout(Duration::from_secs(3))
        .with_prefix("files")
    );
    assert_eq!(
        config.upstreams[0].transport,
        UpstreamTransport::Http(
            HttpTransport::new("https://api.example.com/mcp").with_bearer_token("tok")
        )
    );
    // The per-server prefix wins over `prefix = "none"`.
    assert_eq!(
        config.upstreams[1].effective_prefix(&s.naming),
        Some("files".to_owned())
    );
    assert_eq!(config.upstreams[0].effective_prefix(&s.naming), None);
}

#[test]
fn config_errors_name_the_key() {
    check_invalid(json_config(r#"{"other": 1}"#), "mcpServers", "missing");
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"command": "x", "args": ["ok", 3]}}}"#),
        "mcpServers.a.args[1]",
        "expected a string",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}"#),
        "mcpServers.a.env.K",
        "expected a string",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"args": []}}}"#),
        "mcpServers.a",
        "missing `command`",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}"#),
        "mcpServers.a",
        "not both",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}"#),
        "mcpServers.a.type",
        "SSE",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"url": "ftp://h/"}}}"#),
        "mcpServers.a.url",
        "scheme `ftp`",
    );
    check_invalid(
        json_config(r#"{"mcpServers": {"a": {"url": "http://h/", "headers": {"X": "a\nb"}}}}"#),
        "mcpServers.a.headers.X",
        "header value",
    );
    check_invalid(
        json_config(
            r#"{"mcpServers": {"a": {"url": "http://h/", "headers": {"Mcp-Session-Id": "1"}}}}"#,
        ),
        "mcpServers.a.headers.Mcp-Session-Id",
        "transport itself",
    );
    check_invalid(
        json_config(
            r#"{"mcpServers": {"a": {"url": "http://h/", "bearer_token": "t", "headers": {"authorization": "Basic x"}}}}"#,
        ),
        "mcpServers.a.headers.authorization",
        "not both",
    );
    check_invalid(
        toml_config("[mcpServers.a]\ncommand = \"x\"\ncomand = \"typo\"\n"),
        "mcpServers.a.comand",
        "unknown key",
    );
    check_invalid(
        toml_config("timout_secs = 3\n"),
        "timout_secs",
        "unknown key",
    );
    check_invalid(
        toml_config("timeout_secs = -1\n"),
        "timeout_secs",
        "above 0",
    );
    check_invalid(
        toml_config("[namespace]\nseparator = \".\"\n"),
        "namespace.separator",
        "tool-name rule",
    );
    check_invalid(
        toml_config("[namespace]\nprefix = \"always\"\n"),
        "namespace.prefix",
        "unknown mode",
    );
    check_invalid(
        toml_config(
            "[mcpServers.a]\nurl = \"http://h/\"\nbearer_token_env = \"TOOLROUTER_TEST_SURELY_UNSET_VAR\"\n",
        ),
        "mcpServers.a.bearer_token_env",
        "is not set",
    );
}

#[test]
fn tables_are_objects_not_arrays() {
    check_invalid(json_config("[]"), "(top level)", "expected an object");
    check_invalid(
        json_config(r#"{"mcpServers": {"a": ["x"]}}"#),
        "mcpServers.a",
        "expected an object with `command` or `url`",
    );
    check_invalid(toml_config("restart = []\n"), "restart", "expected a table");
    check_invalid(
        toml_config("[limits]\nmax_tools = 3\n"),
        "limits.max_tools",
        "unknown key (expected one of: max_description_chars, max_tools_per_upstream)",
    );
}

#[test]
fn syntax_and_read_errors_name_the_file() {
    let err = json_config("{\"mcpServers\": ").expect_err("truncated");
    assert!(
        matches!(err, ConfigError::Syntax { format: "JSON", .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("/etc/mcp/claude_desktop_config.json: not valid JSON"),
        "{err}"
    );
    let err = GatewayConfig::load("/nonexistent/toolrouter.toml").expect_err("missing");
    assert_eq!(err.path(), Path::new("/nonexistent/toolrouter.toml"));
    assert!(matches!(err, ConfigError::Read { .. }));
}

#[test]
fn http_transport_debug_hides_secrets() {
    let transport = HttpTransport::new("https://h/mcp")
        .with_header("Authorization", "Bearer abc")
        .with_bearer_token("xyz");
    let shown = format!("{transport:?}");
    assert!(!shown.contains("abc") && !shown.contains("xyz"), "{shown}");
    assert!(shown.contains("Authorization"), "{shown}");
}

#[test]
fn restart_delays_double_up_to_the_cap() {
    let policy = RestartPolicy {
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(1000),
    };
    let delays: Vec<u128> = (0..6).map(|n| policy.delay(n).as_millis()).collect();
    assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
    assert_eq!(policy.delay(u32::MAX), Duration::from_millis(1000));
}

// ---- naming ----

fn check_name(prefix: Option<&str>, separator: &str, tool: &str, expect: &str) {
    let name = public_tool_name(prefix, separator, tool);
    assert_eq!(name, expect);
    validate_tool_name(&name).expect("passes the name rule");
}

#[test]
fn names_are_namespaced_and_sanitised() {
    check_name(Some("github"), "__", "create_issue", "github__create_issue");
    check_name(Some("everything"), "__", "get-sum", "everything__get-sum");
    check_name(None, "__", "read_file", "read_file");
    check_name(Some("fs"), "-", "read", "fs-read");
    check_name(
        Some("my server"),
        "__",
        "files/read.v2",
        "my_server__files_read_v2",
    );
    check_name(Some("ü"), "__", "x", "___x");
}

#[test]
fn long_names_are_cut_with_a_stable_hash() {
    let tool = "a".repeat(80);
    let name = public_tool_name(Some("server"), "__", &tool);
    assert_eq!(name.len(), 64);
    validate_tool_name(&name).expect("within the rule");
    // Head kept: "server__" plus 47 `a`s, then `_` and 8 hex digits.
    assert_eq!(&name[..55], format!("server__{}", "a".repeat(47)));
    assert_eq!(&name[55..56], "_");
    assert!(name[56..].bytes().all(|b| b.is_ascii_hexdigit()));
    // Deterministic, and different tails give different names.
    assert_eq!(name, public_tool_name(Some("server"), "__", &tool));
    let other = public_tool_name(Some("server"), "__", &format!("{tool}b"));
    assert_ne!(name, other);
    assert_eq!(name[..55], other[..55]);
    // Exactly 64 is kept as is.
    let exact = "b".repeat(64 - 8);
    assert_eq!(
        public_tool_name(Some("server"), "__", &exact),
        format!("server__{exact}")
    );
}

// ---- admission ----

struct Nothing;

#[async_trait]
impl ToolHandler for Nothing {
    async fn call(
        &self,
        _args: JsonObject,
        _ctx: ToolContext,
    ) -> Result<CallToolResult, ToolError> {
        Err(ToolError::new("not called in these tests"))
    }
}

fn rules(max_tools: usize, max_description_chars: usize) -> AdmitRules<'static> {
    AdmitRules {
        server: "up",
        prefix: Some("up"),
        separator: "__",
        max_tools,
        max_description_chars,
        timeout: Some(Duration::from_secs(9)),
    }
}

fn listed(entries: serde_json::Value) -> Vec<Tool> {
    serde_json::from_value(entries).expect("tool list")
}

/// (registry name, upstream name) of each admitted tool, and the issues.
type Outcome = (Vec<(String, String)>, Vec<UpstreamIssue>);

fn admit(rules: &AdmitRules<'_>, entries: serde_json::Value) -> Result<Outcome, String> {
    admit_tools(rules, listed(entries), |_| {
        Arc::new(Nothing) as Arc<dyn ToolHandler>
    })
    .map(|(tools, issues)| {
        let names = tools
            .iter()
            .map(|a| (a.tool.name().to_owned(), a.upstream_name.clone()))
            .collect();
        (names, issues)
    })
    .map_err(|e| e.to_string())
}

#[test]
fn admitted_tools_are_renamed_marked_and_stripped() {
    let tools = listed(json!([{
        "name": "read.file",
        "title": "Read",
        "description": "Reads a file.",
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        "annotations": {"readOnlyHint": true},
        "icons": [{"src": "https://evil.example/icon.png"}],
        "_meta": {"x": 1}
    }]));
    let (admitted, issues) = admit_tools(&rules(10, 100), tools, |_| {
        Arc::new(Nothing) as Arc<dyn ToolHandler>
    })
    .expect("admitted");
    assert!(issues.is_empty());
    let tool = &admitted[0];
    assert_eq!(tool.upstream_name, "read.file");
    assert_eq!(tool.tool.name(), "up__read_file");
    assert_eq!(tool.tool.source(), &ToolSource::Upstream("up".to_owned()));
    assert_eq!(tool.tool.timeout(), Some(Duration::from_secs(9)));
    let def = tool.tool.definition();
    assert_eq!(def.description.as_deref(), Some("Reads a file."));
    assert_eq!(def.title.as_deref(), Some("Read"));
    assert!(def.annotations.is_some());
    assert!(def.icons.is_none() && def.meta.is_none());
}

#[test]
fn long_descriptions_are_cut_and_reported() {
    let (tools, issues) = admit(
        &rules(10, 5),
        json!([{"name": "t", "description": "éééééééé", "inputSchema": {"type": "object"}}]),
    )
    .expect("admitted");
    assert_eq!(tools, [("up__t".to_owned(), "t".to_owned())]);
    assert_eq!(
        issues,
        [UpstreamIssue::DescriptionTruncated {
            public_name: "up__t".to_owned(),
            chars: 8
        }]
    );
}

#[test]
fn names_equal_after_sanitising_collide_within_one_upstream() {
    let (tools, issues) = admit(
        &rules(10, 100),
        json!([
            {"name": "a.b", "inputSchema": {"type": "object"}},
            {"name": "a_b", "inputSchema": {"type": "object"}}
        ]),
    )
    .expect("admitted");
    assert_eq!(tools, [("up__a_b".to_owned(), "a.b".to_owned())]);
    assert_eq!(
        issues,
        [UpstreamIssue::NameCollision {
            public_name: "up__a_b".to_owned(),
            upstream_tool: "a_b".to_owned(),
            holder: ToolSource::Upstream("up".to_owned()),
        }]
    );
}

#[test]
fn malformed_lists_are_refused_as_a_whole() {
    let object = json!({"type": "object"});
    let cases = [
        (
            json!([{"name": "a", "inputSchema": object}, {"name": "b", "inputSchema": object}, {"name": "c", "inputSchema": object}]),
            "3 tools advertised, more than the limit of 2",
        ),
        (
            json!([{"name": "a", "inputSchema": object}, {"name": "a", "inputSchema": object}]),
            "tool `a` is listed twice",
        ),
        (
            json!([{"name": "", "inputSchema": object}]),
            "tool #0 (\"\"): empty name",
        ),
        (
            json!([{"name": "rm -rf", "inputSchema": object}]),
            "tool #0 (\"rm -rf\"): name contains whitespace or control characters",
        ),
        (
            json!([{"name": "n", "inputSchema": {"type": "array"}}]),
            "tool `n`: invalid input schema for tool `up__n`",
        ),
        (
            json!([{"name": "n", "inputSchema": {"type": "object", "properties": {"x": {"type": 12}}}}]),
            "tool `n`: invalid input schema",
        ),
        (
            // Remote references are never fetched (no HTTP resolver is built in).
            json!([{"name": "n", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/evil.json"}}}}]),
            "tool `n`: invalid input schema",
        ),
        (
            json!([{"name": "n", "inputSchema": object, "outputSchema": {"type": "string"}}]),
            "tool `n`: invalid output schema",
        ),
    ];
    for (entries, expect) in cases {
        let err = admit(&rules(2, 100), entries).expect_err(expect);
        assert!(
            err.starts_with("malformed tools list from upstream `up`: "),
            "{err}"
        );
        assert!(err.contains(expect), "`{err}` should contain `{expect}`");
    }
}
