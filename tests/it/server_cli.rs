//! `toolrouter serve` as a real process, checked by the Python SDK client
//! (`tests/data/conformance/pyclient.py`) over stdio and Streamable HTTP.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use crate::support::ext::python_with_mcp;
use crate::support::{pyclient, toolrouter_bin};

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
        .arg(pyclient())
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
    let reply = post_call(&addr).unwrap();
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

/// One `tools/call` of `calculate` over a fresh connection; the raw reply.
fn post_call(addr: &str) -> std::io::Result<String> {
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"(12+5)*3"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr)?;
    stream.write_all(request.as_bytes())?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    Ok(reply)
}

#[test]
fn a_server_whose_stderr_is_closed_keeps_serving() {
    // Whoever started the server stopped reading its stderr before the first
    // line: every status line and warning fails to write (EPIPE).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let addr = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().to_string()
    };
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", &addr, "--stateless", "--json"])
        .env("TOOLROUTER_LOG", "debug")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(writer)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let reply = loop {
        match post_call(&addr) {
            Ok(reply) => break Ok(reply),
            Err(e) if std::time::Instant::now() > deadline => break Err(e),
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    };
    // A second call after the first one's log lines failed to write.
    let again = post_call(&addr);
    let exited = child.try_wait().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(exited, None, "the server exited");
    for reply in [reply, again] {
        let reply = reply.unwrap();
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        assert!(reply.contains(r#""text":"51""#), "{reply}");
    }
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

/// The lines an MCP client sends to start a session and call `calculate`.
const STDIO_SESSION: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"(12+5)*3"}}}"#,
    "\n",
);

/// Reads reply lines until the one with id 2 and checks it carries `51`.
fn expect_calculate_reply(output: impl std::io::BufRead) {
    for line in output.lines() {
        let line = line.unwrap();
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            assert_eq!(message["result"]["isError"], false, "{message}");
            assert_eq!(message["result"]["content"][0]["text"], "51", "{message}");
            return;
        }
    }
    panic!("the output ended without the reply to the call");
}

/// Runs `toolrouter serve --stdio` with `extra` flags over a session that
/// lists the tools (id 2) and calls `write_to_file` (id 3); the two replies.
fn list_and_write_over_stdio(extra: &[&str]) -> (Vec<String>, serde_json::Value) {
    let workspace = tempfile::tempdir().unwrap();
    let session = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cli-test","version":"0"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_to_file","arguments":{"path":"x.txt","content":"x"}}}"#,
        "\n",
    );
    let mut input = tempfile::tempfile().unwrap();
    input.write_all(session.as_bytes()).unwrap();
    std::io::Seek::rewind(&mut input).unwrap();
    let output = Command::new(toolrouter_bin())
        .args(["serve", "--stdio", "--workspace"])
        .arg(workspace.path())
        .args(extra)
        .stdin(Stdio::from(input))
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    let replies: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let reply = |id: u64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no reply {id} in {replies:?}"))
            .clone()
    };
    let names = reply(2)["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    (names, reply(3))
}

#[test]
fn serve_declares_write_to_file_only_with_allow_write() {
    let (names, call) = list_and_write_over_stdio(&[]);
    assert_eq!(
        names,
        ["calculate", "list_files", "read_file", "search_files"]
    );
    let text = call.to_string();
    assert!(text.contains("unknown tool `write_to_file`"), "{text}");

    let (names, call) = list_and_write_over_stdio(&["--allow-write"]);
    assert!(names.iter().any(|n| n == "write_to_file"), "{names:?}");
    assert_eq!(call["result"]["isError"], false, "{call}");
}

/// Waits up to 30 s for `child` to exit; whether it exited successfully.
fn exits_in_time(child: &mut Child) -> bool {
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("`serve --stdio` did not exit after its input closed");
}

/// Whether descriptor `fd` of process `pid` is in non-blocking mode, from the
/// `flags:` line (octal) of `/proc/PID/fdinfo/FD`.
#[cfg(target_os = "linux")]
fn fd_is_nonblocking(fdinfo: &str) -> bool {
    const O_NONBLOCK: u32 = 0o4000;
    let flags = fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .unwrap_or_else(|| panic!("no flags line in {fdinfo:?}"));
    u32::from_str_radix(flags.trim(), 8).unwrap() & O_NONBLOCK != 0
}

/// Node's `child_process` (and so Electron hosts such as Claude Desktop) gives
/// a child Unix socket pairs as stdin and stdout, not pipes.
#[cfg(unix)]
#[test]
fn serve_over_stdio_socket_pairs_answers_a_call_and_exits_when_the_input_closes() {
    use std::os::fd::OwnedFd;
    use std::os::unix::net::UnixStream;

    let (mut to_server, server_in) = UnixStream::pair().unwrap();
    let (from_server, server_out) = UnixStream::pair().unwrap();
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--stdio"])
        .stdin(Stdio::from(OwnedFd::from(server_in)))
        .stdout(Stdio::from(OwnedFd::from(server_out)))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    to_server.write_all(STDIO_SESSION.as_bytes()).unwrap();
    expect_calculate_reply(BufReader::new(&from_server));
    // While it serves, the sockets are read through the reactor (non-blocking).
    #[cfg(target_os = "linux")]
    {
        let fdinfo = std::fs::read_to_string(format!("/proc/{}/fdinfo/0", child.id())).unwrap();
        assert!(fd_is_nonblocking(&fdinfo), "{fdinfo}");
    }
    drop(to_server);
    assert!(exits_in_time(&mut child));
}

/// A file as stdin cannot be polled: it is read the portable way, and the
/// server still answers what it read and exits at its end.
#[test]
fn serve_with_stdin_from_a_file_answers_and_exits_at_its_end() {
    let mut input = tempfile::tempfile().unwrap();
    input.write_all(STDIO_SESSION.as_bytes()).unwrap();
    std::io::Seek::rewind(&mut input).unwrap();
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--stdio"])
        .stdin(Stdio::from(input))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    expect_calculate_reply(BufReader::new(child.stdout.take().unwrap()));
    assert!(exits_in_time(&mut child));
}

/// stdin and stdout are often shared with the shell that started the server:
/// after serving, they are back in blocking mode for whoever uses them next.
#[cfg(target_os = "linux")]
#[test]
fn serve_over_pipes_puts_stdin_and_stdout_back_in_blocking_mode() {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(r#""$0" serve --stdio; cat /proc/$$/fdinfo/0 >&2; echo --- >&2; cat /proc/$$/fdinfo/1 >&2"#)
        .arg(toolrouter_bin())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(STDIO_SESSION.as_bytes()).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    expect_calculate_reply(&mut stdout);
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let report = String::from_utf8_lossy(&output.stderr);
    let (stdin_info, stdout_info) = report.rsplit_once("---").unwrap();
    assert!(!fd_is_nonblocking(stdin_info), "{report}");
    assert!(!fd_is_nonblocking(stdout_info), "{report}");
}

/// Every line `serve --stdio` cannot use gets a JSON-RPC
/// error (not JSON, invalid UTF-8, a NUL byte: -32700 with a null id; a line
/// over the 16 MiB limit: an error with the id read from its prefix; a call
/// whose arguments are not an object: -32602), and it keeps serving.
#[test]
fn every_stdio_line_is_answered() {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let oversize = |id: &str| {
        let mut line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"calculate","arguments":{{"expression":""#
        )
        .into_bytes();
        line.resize(line.len() + (17 << 20), b'1');
        line.extend_from_slice(b"\"}}}\n");
        line
    };
    let writer = std::thread::spawn(move || {
        let init = &STDIO_SESSION[..STDIO_SESSION.find(r#"{"jsonrpc":"2.0","id":2"#).unwrap()];
        stdin.write_all(init.as_bytes()).unwrap();
        stdin.write_all(b"this is not json\n").unwrap();
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"x\":\"\xff\"}\n")
            .unwrap();
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":4,\0\"method\":\"ping\"}\n")
            .unwrap();
        stdin.write_all(&oversize("5")).unwrap();
        stdin.write_all(&oversize(r#""big-6""#)).unwrap();
        for (id, arguments) in [(7, "[1]"), (8, r#""(12+5)*3""#)] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"calculate","arguments":{arguments}}}}}"#
            );
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin
            .write_all(&STDIO_SESSION.as_bytes()[init.len()..])
            .unwrap();
    });
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut replies = Vec::new();
    let mut line = String::new();
    // initialize, 3 unparsable lines, 2 oversize, 2 bad arguments, the call.
    while replies.len() < 9 {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        replies.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    writer.join().unwrap();
    assert!(exits_in_time(&mut child));
    let code_of = |id: serde_json::Value| -> Vec<i64> {
        replies
            .iter()
            .filter(|r| r["id"] == id)
            .map(|r| r["error"]["code"].as_i64().unwrap_or(0))
            .collect()
    };
    assert_eq!(
        code_of(serde_json::Value::Null),
        [-32700; 3],
        "{replies:#?}"
    );
    assert_eq!(code_of(5.into()), [-32600], "{replies:#?}");
    assert_eq!(code_of("big-6".into()), [-32600], "{replies:#?}");
    assert_eq!(code_of(7.into()), [-32602], "{replies:#?}");
    assert_eq!(code_of(8.into()), [-32602], "{replies:#?}");
    let last = replies
        .iter()
        .find(|r| r["id"] == 2)
        .expect("the call after them");
    assert_eq!(last["result"]["content"][0]["text"], "51", "{replies:#?}");
    // No reply quotes the 17 MiB line.
    assert!(replies.iter().all(|r| r.to_string().len() < 2048));
}

/// Sends one POST on a fresh connection and returns the whole reply.
fn post(addr: &str, session: Option<&str>, body: &str) -> String {
    let session = session.map_or(String::new(), |id| {
        format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    });
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

/// In sessions mode a client's bad requests are not logged
/// at the default level (rmcp warns about every JSON-RPC error it answers).
#[test]
fn client_errors_in_a_session_are_not_logged_by_default() {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0"])
        .env_remove("TOOLROUTER_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("toolrouter: serving MCP at http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("first stderr line should state the URL: {first:?}"))
        .to_owned();
    let reply = post(
        &addr,
        None,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let session = reply
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id: {reply}"));
    post(
        &addr,
        Some(&session),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    for n in 0..20 {
        let reply = post(
            &addr,
            Some(&session),
            &format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"nope","arguments":{{}}}}}}"#,
                n + 2
            ),
        );
        assert!(reply.contains("unknown tool"), "{reply}");
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut log = String::new();
    stderr.read_to_string(&mut log).unwrap();
    assert!(!log.contains("response error"), "{log}");
    assert!(!log.contains("WARN"), "{log}");
}

#[test]
fn stateless_serve_warns_of_a_random_state_key_and_names_a_bad_key_file() {
    let mut child = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--stateless"])
        .env_remove("TOOLROUTER_STATE_KEY_FILE")
        .env_remove("TOOLROUTER_STATE_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let (mut first, mut second) = (String::new(), String::new());
    stderr.read_line(&mut first).unwrap();
    stderr.read_line(&mut second).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.starts_with("toolrouter: serving MCP at "), "{first}");
    assert!(
        second.starts_with("toolrouter: warning: --stateless with a random state key"),
        "{second}"
    );

    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    std::fs::write(&keys, "00112233445566778899aabbccddeeff\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let output = Command::new(toolrouter_bin())
        .args([
            "serve",
            "--http",
            "127.0.0.1:0",
            "--stateless",
            "--state-key-file",
        ])
        .arg(&keys)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    let expected = format!(
        "state key file {}, line 1: the key is 16 bytes",
        keys.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");

    // The keys themselves in the environment, read the same way.
    let output = Command::new(toolrouter_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--stateless"])
        .env_remove("TOOLROUTER_STATE_KEY_FILE")
        .env("TOOLROUTER_STATE_KEY", "# comment\nnot-a-key!\n")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("TOOLROUTER_STATE_KEY, line 2: neither hex nor base64"),
        "{stderr}"
    );
}
