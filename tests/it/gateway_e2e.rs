//! The gateway end to end, through the `toolrouter` binary: the npm `server-everything`
//! and `server-filesystem` as upstreams of `route --config` (a hand-written model
//! stream calling a tool of each) and of `serve --config` (the Python `mcp` SDK
//! client calling the same tools over Streamable HTTP and stdio).
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::gateway::{EVERYTHING, FILESYSTEM, HANG_GUARD};
use crate::support::ext::{npm_bin, python_with_mcp};
use crate::support::{pyclient, repo_root, toolrouter_bin};

/// What the file inside the filesystem server's allowed directory holds.
const NOTES: &str = "first line\nsecond line\n";
/// The echo text the streams send, and what `echo` answers (`Echo: ` + message).
const MESSAGE: &str = "routed through the gateway";
const ECHOED: &str = "Echo: routed through the gateway";
/// The streams add 19 and 23.
const SUM: &str = "The sum of 19 and 23 is 42.";

/// A temporary directory with `notes/notes.txt`, the filesystem server's allowed
/// directory `notes/`, and a configuration naming both upstreams. Every upstream
/// gets the environment variable `TOOLROUTER_E2E_TAG` (unique per site), so the
/// test can find the child processes and check that none outlives `toolrouter`.
struct Site {
    dir: tempfile::TempDir,
    config: PathBuf,
    tag: String,
}

enum Format {
    McpServersJson,
    Toml,
}

impl Site {
    fn new(format: Format) -> Self {
        let everything = npm_bin(EVERYTHING, "mcp-server-everything");
        let filesystem = npm_bin(FILESYSTEM, "mcp-server-filesystem");
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        std::fs::create_dir(&notes).unwrap();
        std::fs::write(notes.join("notes.txt"), NOTES).unwrap();
        let tag = format!("e2e-{}", dir.path().display());
        let config = match format {
            Format::McpServersJson => {
                let path = dir.path().join("claude_desktop_config.json");
                let body = json!({
                    "mcpServers": {
                        "everything": {
                            "command": everything,
                            "env": {"TOOLROUTER_E2E_TAG": tag},
                        },
                        "filesystem": {
                            "command": filesystem,
                            "args": [notes],
                            "env": {"TOOLROUTER_E2E_TAG": tag},
                        },
                    }
                });
                std::fs::write(&path, serde_json::to_string_pretty(&body).unwrap()).unwrap();
                path
            }
            Format::Toml => {
                let path = dir.path().join("toolrouter.toml");
                // Debug formatting quotes and escapes a string the way TOML's
                // basic strings need for these paths.
                let body = format!(
                    "workspace = \"notes\"\n\n\
                     [mcpServers.everything]\ncommand = {:?}\nenv = {{ TOOLROUTER_E2E_TAG = {tag:?} }}\n\n\
                     [mcpServers.filesystem]\ncommand = {:?}\nargs = [{:?}]\nenv = {{ TOOLROUTER_E2E_TAG = {tag:?} }}\n",
                    everything.display().to_string(),
                    filesystem.display().to_string(),
                    notes.display().to_string(),
                );
                std::fs::write(&path, body).unwrap();
                path
            }
        };
        Self { dir, config, tag }
    }

    /// Pids of live processes carrying this site's tag (zombies excluded).
    fn tagged_processes(&self) -> Vec<u32> {
        let needle = format!("TOOLROUTER_E2E_TAG={}", self.tag);
        let mut pids = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            let tagged = environ
                .split(|b| *b == 0)
                .any(|var| var == needle.as_bytes());
            let zombie = std::fs::read_to_string(entry.path().join("stat"))
                .map(|stat| {
                    stat.rsplit_once(')')
                        .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
                })
                .unwrap_or(false);
            if tagged && !zombie {
                pids.push(pid);
            }
        }
        pids
    }

    /// Waits (bounded by the hang guard) until no tagged process is left.
    fn assert_no_upstream_left(&self) {
        let deadline = Instant::now() + HANG_GUARD;
        loop {
            let left = self.tagged_processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "upstream processes outlived toolrouter: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn route_summary(site: &Site, provider: &str, stream: &str) -> Value {
    let stream = repo_root()
        .join("tests")
        .join("data")
        .join("gateway")
        .join(stream);
    let out = Command::new(toolrouter_bin())
        .args(["route", "--summary", "--chunk", "7", "--provider", provider])
        .arg("--config")
        .arg(&site.config)
        .arg(&stream)
        .current_dir(site.dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "exit {}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "summary is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The text blocks of one result, joined.
fn result_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("result without content: {result}"))
        .iter()
        .filter(|block| block["type"] == "text")
        .map(|block| block["text"].as_str().unwrap())
        .collect()
}

fn assert_routed(summary: &Value, ids: [&str; 3]) {
    assert_eq!(
        summary["text"], "Checking with both servers.",
        "{summary:#}"
    );
    assert_eq!(summary["stop"], "tool_use", "{summary:#}");
    assert_eq!(
        summary["calls"],
        json!([
            {"id": ids[0], "name": "everything__echo", "arguments": {"message": MESSAGE}},
            {"id": ids[1], "name": "everything__get-sum", "arguments": {"a": 19, "b": 23}},
            {"id": ids[2], "name": "filesystem__read_text_file", "arguments": {"path": "notes.txt"}},
        ]),
        "{summary:#}"
    );
    let results = summary["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "{summary:#}");
    for result in results {
        assert_ne!(result["isError"], true, "{summary:#}");
    }
    assert_eq!(result_text(&results[0]), ECHOED);
    assert_eq!(result_text(&results[1]), SUM);
    assert_eq!(result_text(&results[2]), NOTES);
}

#[test]
fn route_config_runs_an_openai_stream_against_everything_and_filesystem() {
    let site = Site::new(Format::McpServersJson);
    let summary = route_summary(&site, "openai", "openai-chat.two-upstreams.sse");
    assert_routed(&summary, ["call_echo", "call_sum", "call_read"]);
    site.assert_no_upstream_left();
}

#[test]
fn route_config_runs_an_anthropic_stream_against_everything_and_filesystem() {
    let site = Site::new(Format::Toml);
    let summary = route_summary(&site, "anthropic", "anthropic.two-upstreams.sse");
    assert_routed(&summary, ["toolu_echo", "toolu_sum", "toolu_read"]);
    site.assert_no_upstream_left();
}

#[test]
fn tools_config_lists_upstream_tools_with_their_source() {
    let site = Site::new(Format::Toml);
    let out = Command::new(toolrouter_bin())
        .args(["tools", "--config"])
        .arg(&site.config)
        .current_dir(site.dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let source_of = |tool: &str| -> Option<String> {
        text.lines()
            .find(|line| line.split_whitespace().next() == Some(tool))
            .and_then(|line| line.split_whitespace().nth(1).map(str::to_owned))
    };
    assert_eq!(
        source_of("everything__echo").as_deref(),
        Some("everything:echo"),
        "{text}"
    );
    assert_eq!(
        source_of("filesystem__read_text_file").as_deref(),
        Some("filesystem:read_text_file"),
        "{text}"
    );
    // The built-ins are there too, from the configuration's workspace.
    assert!(source_of("calculate").is_some(), "{text}");
    site.assert_no_upstream_left();
}

/// One pyclient run per tool: each lists the tools (all three must be there)
/// and calls one, checking its text.
fn pyclient_calls(target: &[&str]) -> Vec<(String, bool, String)> {
    let calls: [(&str, Value, &str); 3] = [
        ("everything__echo", json!({"message": MESSAGE}), ECHOED),
        ("everything__get-sum", json!({"a": 19, "b": 23}), SUM),
        (
            "filesystem__read_text_file",
            json!({"path": "notes.txt"}),
            NOTES,
        ),
    ];
    calls
        .iter()
        .map(|(tool, args, expected)| {
            let output = Command::new(python_with_mcp())
                .arg(pyclient())
                .args(target)
                .args([
                    "--expect-tool",
                    "everything__echo",
                    "--expect-tool",
                    "everything__get-sum",
                    "--expect-tool",
                    "filesystem__read_text_file",
                    "--expect-tool",
                    "calculate",
                    "--call",
                    tool,
                    "--args",
                    &args.to_string(),
                    "--expect-text",
                    expected,
                    "--timeout",
                    "60",
                ])
                .output()
                .unwrap();
            let report = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            ((*tool).to_owned(), output.status.success(), report)
        })
        .collect()
}

fn assert_pyclient_ok(runs: &[(String, bool, String)]) {
    for (tool, ok, report) in runs {
        assert!(*ok && report.contains("pyclient: OK"), "{tool}: {report}");
    }
}

/// Waits for a child, bounded by the hang guard (then it is killed).
fn wait_bounded(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("toolrouter serve did not stop after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn serve_http(config: &Path, dir: &Path) -> (Child, String) {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--config"])
        .arg(config)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut reader = BufReader::new(stderr);
    let mut url = None;
    let mut seen = String::new();
    // Upstream warnings may come first; the URL line comes once serving.
    for line in (&mut reader).lines() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if let Some(rest) = line.strip_prefix("toolrouter: serving MCP at ") {
            url = Some(rest.trim().to_owned());
            break;
        }
    }
    let Some(url) = url else {
        let _ = child.kill();
        panic!("serve --http did not state its URL: {seen}");
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in reader.lines() {});
    (child, url)
}

#[test]
fn serve_config_over_http_gives_the_python_sdk_the_upstream_tools() {
    let site = Site::new(Format::Toml);
    let (mut child, url) = serve_http(&site.config, site.dir.path());
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let runs = pyclient_calls(&["--url", &url]);
    // Serving stops on SIGTERM; the upstreams are stopped with it.
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = wait_bounded(&mut child);
    assert_pyclient_ok(&runs);
    assert!(status.success(), "serve exited with {status}");
    site.assert_no_upstream_left();
}

#[test]
fn serve_config_over_stdio_gives_the_python_sdk_the_upstream_tools() {
    let site = Site::new(Format::McpServersJson);
    // The built-ins' workspace is the directory serve starts in; pyclient starts
    // serve in its own working directory, so name it.
    let command = format!(
        "{} serve --stdio --config {} --workspace {}",
        toolrouter_bin().display(),
        site.config.display(),
        site.dir.path().display()
    );
    let runs = pyclient_calls(&["--stdio", &command]);
    assert_pyclient_ok(&runs);
    site.assert_no_upstream_left();
}
