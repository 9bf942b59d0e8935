//! `toolrouter serve` as a real process, checked by the Python SDK client
//! (`../shared/conformance/pyclient.py`) over stdio and Streamable HTTP.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

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

/// Starts `toolrouter serve --http 127.0.0.1:0 EXTRA...` and reads the URL
/// from the first stderr line.
fn serve_http(extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0"])
        .args(extra)
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
    (child, url)
}

#[test]
fn serve_http_states_its_url_first_and_the_python_sdk_connects() {
    let (mut child, url) = serve_http(&[]);
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

#[test]
fn serve_stateless_json_answers_a_call_without_a_session() {
    let (mut child, url) = serve_http(&["--stateless", "--json"]);
    let addr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap()
        .to_owned();
    // No initialize, no session: one POST carrying the call.
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"(12+5)*3"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (python_ok, report) = run_pyclient(&["--url", &url]);
    let _ = child.kill();
    let _ = child.wait();

    let (head, payload) = reply.split_once("\r\n\r\n").unwrap();
    let head = head.to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{reply}");
    assert!(head.contains("content-type: application/json"), "{reply}");
    assert!(!head.contains("mcp-session-id"), "{reply}");
    let message: serde_json::Value = serde_json::from_str(payload).unwrap();
    assert_eq!(message["id"], 7, "{message}");
    assert_eq!(message["result"]["isError"], false, "{message}");
    assert_eq!(message["result"]["content"][0]["text"], "51", "{message}");
    // The SDK client works against the stateless server too.
    assert!(python_ok, "{report}");
}

#[test]
fn json_replies_need_stateless_mode() {
    let output = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--json"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--stateless"), "{stderr}");
}
