//! The proxy's front door against careless starts and hostile clients: an
//! empty or blank token is refused at start (library and command, `proxy`
//! and `serve --http`); the token is matched whatever the case of its
//! scheme, and never by an empty key; one connection cap holds for every
//! worker, and a connection over it is answered in its door's error shape;
//! the upstream's password is never printed.

#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use toolrouter::{
    HttpOptions, Hub, ProxyError, ProxyOptions, ProxyServer, ServeError, ServerOptions, serve_http,
    serve_proxy,
};

use crate::proxy::{recording, request};
use crate::support::ext::{python_with_anthropic, python_with_openai};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::{run_json_client, toolrouter_bin};

/// Long enough that a test waiting on it never fails on a slow machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// An upstream nothing is sent to (the discard port).
const NO_UPSTREAM: &str = "http://127.0.0.1:9/v1";

fn loopback() -> std::net::SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// Tokens that are no token: empty, or only whitespace.
const BLANK_TOKENS: [&str; 4] = ["", " ", "\t", " \t\n "];

#[tokio::test]
async fn serve_proxy_refuses_an_empty_or_blank_token() {
    for token in BLANK_TOKENS {
        for allow_remote in [false, true] {
            let options = ProxyOptions::new(loopback(), NO_UPSTREAM, "vllm")
                .allow_remote(allow_remote)
                .with_bearer_token(token);
            match serve_proxy(options).await {
                Ok(proxy) => panic!("started at {} with the token {token:?}", proxy.url()),
                Err(e) => assert!(matches!(e, ProxyError::EmptyToken), "{token:?}: {e}"),
            }
        }
    }
}

#[tokio::test]
async fn serve_http_refuses_an_empty_or_blank_token() {
    for token in BLANK_TOKENS {
        let options = HttpOptions::new(loopback()).with_bearer_token(token);
        match serve_http(Hub::new(), ServerOptions::default(), options).await {
            Ok(server) => {
                let url = server.url();
                server.shutdown().await.unwrap();
                panic!("served at {url} with the token {token:?}");
            }
            Err(e) => assert!(matches!(e, ServeError::EmptyToken), "{token:?}: {e}"),
        }
    }
}

/// The command stopped when dropped (a failed assertion included).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Runs `toolrouter args`, which should refuse to start: its exit code and
/// stderr. One still running after [`PATIENCE`] started: the test fails.
fn refused_start(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Running(
        Command::new(toolrouter_bin())
            .args(args)
            .env_remove("TOOLROUTER_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "`toolrouter {}` started",
            args.join(" ")
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}

#[test]
fn the_commands_refuse_an_empty_or_blank_token_as_a_usage_error() {
    let proxy = |listen: &'static str, extra: &[&'static str]| {
        let mut args = vec![
            "proxy",
            "--listen",
            listen,
            "--upstream",
            NO_UPSTREAM,
            "--provider",
            "vllm",
        ];
        args.extend_from_slice(extra);
        args
    };
    let mut cases = Vec::new();
    for token in BLANK_TOKENS {
        cases.push(proxy("127.0.0.1:0", &["--token", token]));
        cases.push(proxy("127.0.0.1:0", &["--allow-remote", "--token", token]));
        cases.push(vec!["serve", "--http", "127.0.0.1:0", "--token", token]);
    }
    // Refused by the arguments, before anything is bound.
    cases.push(proxy("0.0.0.0:0", &["--allow-remote", "--token", ""]));
    cases.push(vec![
        "serve",
        "--http",
        "0.0.0.0:0",
        "--allow-remote",
        "--token",
        "",
    ]);
    for args in cases {
        let (code, stderr) = refused_start(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--token"), "{args:?}: {stderr}");
        assert!(stderr.contains("empty or blank"), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn the_token_is_matched_in_any_case_of_its_scheme_and_never_by_an_empty_key() {
    let file = recording("openai-compat.answer.sse");
    let accepted: [(&str, &str); 5] = [
        ("authorization", "Bearer tok-123"),
        ("authorization", "bearer tok-123"),
        ("authorization", "BEARER tok-123"),
        ("authorization", "Bearer  tok-123"),
        ("x-api-key", "tok-123"),
    ];
    let refused: [(&str, &str); 14] = [
        ("x-api-key", ""),
        ("x-api-key", "   "),
        ("x-api-key", "Bearer tok-123"),
        ("authorization", ""),
        ("authorization", "Bearer"),
        ("authorization", "Bearer "),
        ("authorization", "bearer  "),
        ("authorization", "tok-123"),
        ("authorization", "Bearertok-123"),
        ("authorization", "Basic tok-123"),
        ("authorization", "Bearer\ttok-123"),
        ("authorization", "Bearer tok-12"),
        ("authorization", "Bearer tok-1234"),
        ("authorization", "Bearer TOK-123"),
    ];
    let replies = accepted.iter().map(|_| Reply::sse(&file)).collect();
    let upstream = ReplayServer::start(replies).await;
    let proxy = serve_proxy(
        ProxyOptions::new(loopback(), upstream.base_url(), "vllm").with_bearer_token("tok-123"),
    )
    .await
    .unwrap();
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", proxy.url());
    for (name, value) in refused {
        let response = client
            .post(&url)
            .header(name, value)
            .json(&request(false))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{name}: {value:?}");
    }
    assert_eq!(upstream.received().len(), 0);
    for (name, value) in accepted {
        let response = client
            .post(&url)
            .header(name, value)
            .json(&request(false))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{name}: {value:?}");
    }
    assert_eq!(upstream.received().len(), accepted.len());
    proxy.shutdown().await;
}

/// A status, the head's lines, and the body of one answer read off `stream`.
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    /// The value of header `name` (case-insensitive).
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Sends `METHOD path` with no body on `stream` and reads the answer (its
/// body by its `Content-Length`).
async fn exchange(stream: &mut TcpStream, method: &str, path: &str) -> Answer {
    let request =
        format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&got[..end]).into_owned();
                let answer = Answer {
                    status: head[9..12].parse().unwrap(),
                    head,
                    body: String::new(),
                };
                let length: usize = answer.header("content-length").unwrap().parse().unwrap();
                let body_start = end + 4;
                if got.len() >= body_start + length {
                    let body = &got[body_start..body_start + length];
                    let body = String::from_utf8_lossy(body).into_owned();
                    return Answer { body, ..answer };
                }
            }
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "closed: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    read.expect("an answer in time")
}

/// A proxy that reaches no upstream, whose connections wait long for
/// anything (so only the cap closes them).
async fn capped_proxy(workers: usize, max_connections: usize) -> ProxyServer {
    serve_proxy(
        ProxyOptions::new(loopback(), NO_UPSTREAM, "vllm")
            .with_workers(workers)
            .with_max_connections(max_connections)
            .with_header_timeout(PATIENCE * 3)
            .with_body_timeout(PATIENCE * 3)
            .with_idle_timeout(PATIENCE * 3),
    )
    .await
    .unwrap()
}

/// Opens a connection that is served (a path nobody serves gets its 404),
/// and keeps it open.
async fn served_connection(proxy: &ProxyServer, which: usize) -> TcpStream {
    let mut stream = TcpStream::connect(proxy.local_addr()).await.unwrap();
    let answer = exchange(&mut stream, "GET", "/nothing-here").await;
    assert_eq!(answer.status, 404, "connection {which}: {}", answer.head);
    stream
}

#[tokio::test]
async fn one_connection_cap_holds_for_every_worker() {
    // With a cap of 3 split over 2 workers (2 each), a third connection on
    // one worker was refused, and a fourth on the other served. Which worker
    // takes a connection is the kernel's choice: each round is a new proxy,
    // so a split cap cannot pass them all by luck.
    const CAP: usize = 3;
    for round in 1..=4 {
        let proxy = capped_proxy(2, CAP).await;
        let mut held = Vec::new();
        for which in 1..=CAP {
            held.push(served_connection(&proxy, which).await);
        }
        for which in CAP + 1..=CAP + 6 {
            let mut stream = TcpStream::connect(proxy.local_addr()).await.unwrap();
            let answer = exchange(&mut stream, "GET", "/nothing-here").await;
            assert_eq!(
                answer.status, 503,
                "round {round}: connection {which} over a cap of {CAP} was served"
            );
        }
        // The held connections are still served.
        for stream in &mut held {
            assert_eq!(exchange(stream, "GET", "/nothing-here").await.status, 404);
        }
        if round == 1 {
            // Once one closes, a new one is served (when its worker has seen
            // it go).
            drop(held.pop());
            let served = tokio::time::timeout(PATIENCE, async {
                loop {
                    let mut stream = TcpStream::connect(proxy.local_addr()).await.unwrap();
                    if exchange(&mut stream, "GET", "/nothing-here").await.status == 404 {
                        return stream;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
            .await;
            assert!(served.is_ok(), "no connection served after one closed");
        }
        proxy.shutdown().await;
    }
}

#[tokio::test]
async fn a_connection_over_the_cap_is_answered_in_its_doors_error_shape() {
    let proxy = capped_proxy(1, 1).await;
    let _held = served_connection(&proxy, 1).await;
    let doors = [
        ("POST", "/v1/chat/completions", false),
        ("POST", "/v1/responses", false),
        ("GET", "/v1/models", false),
        ("GET", "/v1/models/m", false),
        ("POST", "/v1/messages", true),
        ("POST", "/v1/messages?beta=true", true),
        ("POST", "/v1/messages-not", false),
    ];
    for (method, path, anthropic) in doors {
        let mut stream = TcpStream::connect(proxy.local_addr()).await.unwrap();
        let answer = exchange(&mut stream, method, path).await;
        assert_eq!(answer.status, 503, "{path}: {}", answer.head);
        assert_eq!(answer.header("retry-after"), Some("1"), "{path}");
        assert_eq!(answer.header("connection"), Some("close"), "{path}");
        assert_eq!(
            answer.header("content-type"),
            Some("application/json"),
            "{path}"
        );
        let body = answer.json();
        if anthropic {
            assert_eq!(body["type"], "error", "{path}: {body}");
            assert_eq!(body["error"]["type"], "overloaded_error", "{path}: {body}");
            assert!(body["error"]["message"].is_string(), "{path}: {body}");
            assert_eq!(body["error"].as_object().unwrap().len(), 2, "{body}");
        } else {
            let error = &body["error"];
            assert!(error["message"].is_string(), "{path}: {body}");
            assert_eq!(error["type"], "server_error", "{path}: {body}");
            assert_eq!(error["code"], "too_many_connections", "{path}: {body}");
            assert_eq!(error["param"], Value::Null, "{path}: {body}");
            assert_eq!(body.as_object().unwrap().len(), 1, "{path}: {body}");
        }
    }
    // The SDKs read it as an error answer, each in its own way (no retries).
    let script = r#"
import json, sys
import anthropic, openai
base = sys.argv[1]
seen = {}
try:
    openai.OpenAI(base_url=base + "/v1", api_key="k", max_retries=0).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}])
except openai.APIStatusError as e:
    seen["openai"] = {"status": e.status_code, "code": e.code, "type": e.type}
try:
    anthropic.Anthropic(base_url=base, api_key="k", max_retries=0).messages.create(
        model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}])
except anthropic.APIStatusError as e:
    seen["anthropic"] = {"status": e.status_code, "type": e.body["error"]["type"]}
print(json.dumps(seen))
"#;
    python_with_anthropic();
    let mut command = Command::new(python_with_openai());
    command
        .args(["-c", script])
        .arg(format!("http://{}", proxy.local_addr()));
    let seen = run_json_client(command).await;
    assert_eq!(
        seen,
        json!({
            "openai": {"status": 503, "code": "too_many_connections", "type": "server_error"},
            "anthropic": {"status": 503, "type": "overloaded_error"},
        })
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_upstreams_password_is_never_printed() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file)]).await;
    let with_password = upstream
        .base_url()
        .replacen("http://", "http://user:s3cret-pw@", 1);
    let mut child = Running(
        Command::new(toolrouter_bin())
            .args([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                &with_password,
                "--provider",
                "vllm",
            ])
            .env_remove("VLLM_API_KEY")
            .env("TOOLROUTER_LOG", "trace")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stderr = BufReader::new(child.0.stderr.take().unwrap());
    let mut log = String::new();
    let url = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "stderr ended");
        log.push_str(&line);
        if let Some(rest) = line.strip_prefix("toolrouter: proxying at ") {
            let (url, upstream) = rest.trim_end().split_once(" -> ").unwrap();
            let redacted = with_password.replacen("user:s3cret-pw@", "***@", 1);
            assert_eq!(upstream, redacted, "{line}");
            break url.to_owned();
        }
    };
    // The password still reaches the upstream, as the URL says.
    let response = reqwest::Client::new()
        .post(format!("{url}/chat/completions"))
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // `user:s3cret-pw` in base64.
    assert_eq!(
        upstream.received()[0].headers["authorization"],
        "Basic dXNlcjpzM2NyZXQtcHc="
    );
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    stderr.read_to_string(&mut log).unwrap();
    assert!(
        !log.contains("s3cret-pw"),
        "the password was logged:\n{log}"
    );
    assert!(
        !log.contains("dXNlcjpzM2NyZXQtcHc"),
        "the key was logged:\n{log}"
    );

    // Nor in the library's accessors, its options' `Debug`, or the answers
    // to a client when the upstream cannot be reached.
    let options = ProxyOptions::new(loopback(), "http://user:s3cret-pw@127.0.0.1:9/v1", "vllm");
    assert!(!format!("{options:?}").contains("s3cret-pw"));
    let proxy = serve_proxy(options).await.unwrap();
    assert_eq!(proxy.upstream(), "http://***@127.0.0.1:9/v1");
    let response = reqwest::Client::new()
        .post(format!("{}/chat/completions", proxy.url()))
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body = response.text().await.unwrap();
    assert!(!body.contains("s3cret-pw"), "{body}");
    proxy.shutdown().await;

    // Nor in the error of a URL the proxy cannot use.
    let options = ProxyOptions::new(loopback(), "http://user:s3cret-pw@{host}/v1", "vllm");
    match serve_proxy(options).await {
        Ok(proxy) => panic!("started at {}", proxy.url()),
        Err(e) => {
            assert!(matches!(e, ProxyError::InvalidUpstream { .. }), "{e}");
            assert!(!e.to_string().contains("s3cret-pw"), "{e}");
            assert!(!format!("{e:?}").contains("s3cret-pw"), "{e:?}");
        }
    }
}
