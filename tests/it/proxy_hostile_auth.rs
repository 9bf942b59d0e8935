//! The proxy's front door against careless starts and hostile clients: an
//! empty or blank token is refused at start (library and command, `proxy`
//! and `serve --http`); the token is matched whatever the case of its
//! scheme, and never by an empty key.

#![allow(clippy::unwrap_used)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use toolrouter::{
    HttpOptions, Hub, ProxyError, ProxyOptions, ServeError, ServerOptions, serve_http, serve_proxy,
};

use crate::proxy::{recording, request};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::toolrouter_bin;

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
async fn issue_37_serve_proxy_refuses_an_empty_or_blank_token() {
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
async fn issue_37_serve_http_refuses_an_empty_or_blank_token() {
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
fn issue_37_the_commands_refuse_an_empty_or_blank_token_as_a_usage_error() {
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
async fn issue_37_the_token_is_matched_in_any_case_of_its_scheme_and_never_by_an_empty_key() {
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
