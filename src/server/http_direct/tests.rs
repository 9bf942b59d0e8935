//! Unit tests of the direct path's admission: headers, hosts and bodies.
#![allow(clippy::unwrap_used)]

use http::HeaderMap;

use super::admission::{Authority, accepts_json_and_sse, content_type_is_json, parse_call};

fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, http::HeaderValue::from_static(value));
    }
    map
}

#[test]
fn accept_needs_both_plain_media_types() {
    assert!(accepts_json_and_sse(&headers(&[(
        "accept",
        "application/json, text/event-stream"
    )])));
    assert!(accepts_json_and_sse(&headers(&[
        ("accept", "text/event-stream"),
        ("accept", "Application/JSON"),
    ])));
    assert!(!accepts_json_and_sse(&headers(&[(
        "accept",
        "application/json"
    )])));
    assert!(!accepts_json_and_sse(&headers(&[])));
    // Weights and parameters are rmcp's to judge.
    assert!(!accepts_json_and_sse(&headers(&[(
        "accept",
        "application/json, text/event-stream;q=0"
    )])));
}

#[test]
fn content_type_essence_is_json() {
    assert!(content_type_is_json(&headers(&[(
        "content-type",
        "application/json; charset=utf-8"
    )])));
    assert!(!content_type_is_json(&headers(&[(
        "content-type",
        "text/plain"
    )])));
    assert!(!content_type_is_json(&headers(&[])));
}

#[test]
fn hosts_match_as_rmcp_normalizes_them() {
    let allowed: Vec<Authority> = ["localhost", "::1", "example.com:8080"]
        .iter()
        .filter_map(|entry| Authority::allowed(entry))
        .collect();
    let admitted = |host: &str| {
        let authority = http::uri::Authority::try_from(host).unwrap();
        let (host, port) = (authority.host(), authority.port_u16());
        allowed.iter().any(|entry| entry.admits(host, port))
    };
    assert!(admitted("localhost:3000"));
    assert!(admitted("LOCALHOST"));
    assert!(admitted("[::1]:9"));
    assert!(admitted("example.com:8080"));
    assert!(!admitted("example.com:8081"));
    assert!(!admitted("evil.example"));
    assert!(!admitted("localhost.evil.example"));
    assert!(!admitted("Example.COM"));
    assert!(admitted("Example.COM:8080"));
}

#[test]
fn only_a_plain_tools_call_is_taken() {
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
    assert!(parse_call(call).is_some());
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    assert!(parse_call(list).is_none());
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}]"#;
    assert!(parse_call(batch).is_none());
    let versioned = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert!(parse_call(versioned).is_none());
    let sampling = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}"#;
    assert!(parse_call(sampling).is_none());
    let notification = br#"{"jsonrpc":"2.0","method":"tools/call"}"#;
    assert!(parse_call(notification).is_none());
    assert!(parse_call(b"not json \"tools/call\"").is_none());
}
