//! `toolrouter serve` as a real process, checked by the Python SDK client
//! (`../shared/conformance/pyclient.py`) over stdio and Streamable HTTP.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use crate::support::ext::python_with_mcp;
use crate::support::{shared_dir, toolrouter_bin};

/// What pyclient checks on top of initialize, ping and tools/list.
fn pyclient_checks() -> Vec<&'static str> {
    vec![
        "--expect-tool",
        "calculate",
        "--call",
        "calculate",
        "--args",
        r#"{"expression":"(12+5)*3"}"#,
        "--expect-text",
        "51",
    ]
}

fn run_pyclient(target: &[&str]) -> (bool, String) {
    let output = Command::new(python_with_mcp())
        .arg(shared_dir().join("conformance").join("pyclient.py"))
        .args(target)
        .args(pyclient_checks())
        .args(["--timeout", "60"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn the_python_sdk_talks_to_serve_over_stdio() {
    let command = format!("{} serve --stdio", toolrouter_bin().display());
    let (ok, report) = run_pyclient(&["--stdio", &command]);
    assert!(ok, "{report}");
    assert!(report.contains("pyclient: OK"), "{report}");
}

#[test]
fn serve_http_states_its_url_first_and_the_python_sdk_connects() {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut first = String::new();
    BufReader::new(stderr).read_line(&mut first).unwrap();
    let url = first
        .trim()
        .strip_prefix("toolrouter: serving MCP at ")
        .unwrap_or_else(|| panic!("first stderr line should state the URL: {first:?}"))
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    assert!(
        !url.contains(":0/"),
        "port 0 must be replaced by the bound port: {url}"
    );
    let (ok, report) = run_pyclient(&["--url", &url]);
    let _ = child.kill();
    let _ = child.wait();
    assert!(ok, "{report}");
}
