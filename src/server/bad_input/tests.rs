//! Unit tests of the answers to unusable input: ids read from prefixes, parse errors, custom requests.

use super::*;

fn check(message: &str, expect: Option<Value>) {
    assert_eq!(id_in_prefix(message.as_bytes()), expect, "{message}");
}

#[test]
fn ids_in_prefixes() {
    check(r#"{"jsonrpc":"2.0","id":5,"method":"x""#, Some(json!(5)));
    check(r#"{ "id" : "big-6" , "method""#, Some(json!("big-6")));
    check(
        r#"{"method":"tools/call","id":-3,"params":{"#,
        Some(json!(-3)),
    );
    check(r#"{"params":{"id":1},"id":2,"#, Some(json!(2)));
    check(r#"{"params":{"arguments":{"id":1,"x":"#, None);
    check(r#"{"text":"\"id\":4","id":9}"#, Some(json!(9)));
    check(r#"{"id":null}"#, None);
    check(r#"{"id":12"#, None);
    check(r#"{"id":"a\"b"}"#, None);
    check("", None);
    let late = format!(r#"{{"pad":"{}","id":1}}"#, "x".repeat(ID_SCAN_BYTES));
    check(&late, None);
}

#[test]
fn json_or_not() {
    assert!(is_json(br#"{"a":[1,2]}"#));
    assert!(!is_json(b"this is not json"));
    assert!(!is_json(b"{\"a\":\"\xff\"}"));
    assert!(!is_json(b"{\"a\":\0 1}"));
    assert!(!is_json(b"{} {}"));
    assert_eq!(parse_error(b"nope")["error"]["code"], -32700);
    assert_eq!(parse_error(b"nope")["id"], Value::Null);
}

#[test]
fn json_serde_cannot_read_is_not_json() {
    // Well-formed text that serde refuses to read as a value, with errors it
    // calls syntax errors (so rmcp drops such a line without an answer): found
    // by the stdio_lines fuzz target (a request with `1e400` in its arguments
    // got no reply at all).
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for text in [
        "2E20251",
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"x":1e400}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"s":"\ud800"}}"#,
        deep.as_str(),
    ] {
        assert!(!is_json(text.as_bytes()), "{text}");
        let error = parse_error(text.as_bytes());
        assert_eq!(error["error"]["code"], -32700, "{text}");
        assert!(
            !error["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("not one JSON value"),
            "{error}"
        );
    }
    let nested = format!("{}{}", "[".repeat(100), "]".repeat(100));
    for text in [
        r#"{"a":1e300,"b":-0.5,"c":"\ud83d\ude00","d":[null,true]}"#,
        nested.as_str(),
    ] {
        assert!(is_json(text.as_bytes()), "{text}");
    }
}

#[test]
fn custom_requests() {
    let bad_arguments = json!({"name": "x", "arguments": [1]});
    let e = custom_request_error("tools/call", Some(&bad_arguments), false);
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let e = custom_request_error("tools/call", Some(&bad_arguments), true);
    assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
    let e = custom_request_error(&"m".repeat(1 << 20), None, false);
    assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    assert!(e.message.len() < 512, "{}", e.message.len());
}

#[test]
fn methods_protocol_2026_07_28_removed_are_unknown_to_its_requests() {
    // The 2026-07-28 conformance set wants -32601 (HTTP 404) for these, with
    // well-formed params of that revision; an older session still knows them.
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        let params = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        let e = custom_request_error(method, Some(&params), true);
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
        let e = custom_request_error(method, Some(&json!([1])), false);
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS, "{method}");
    }
}
