#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::*;

fn parse(text: &str) -> ChatJson {
    ChatJson::parse(text.to_owned()).unwrap().unwrap()
}

/// What `serde_json` reads of `text`: the oracle of the tree and the text.
fn tree(text: &str) -> Map<String, Value> {
    serde_json::from_str(text).unwrap()
}

fn sent(body: &ChatJson) -> String {
    String::from_utf8(body.to_vec()).unwrap()
}

#[test]
fn a_body_goes_out_as_it_came_in_its_order() {
    for text in [
        r#"{}"#,
        r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}], "x": {"y": [1, 2.50, 1e2]}}"#,
        r#"{"z": 1, "a": 2, "m": null}"#,
        "{\n  \"k\\u0065y\": \"v\\n\",\n  \"é\": true }",
    ] {
        let body = parse(text);
        let out = sent(&body);
        let again: Map<String, Value> = serde_json::from_str(&out).unwrap();
        assert_eq!(again, tree(text), "{text}");
        assert_eq!(
            again.keys().collect::<Vec<_>>(),
            tree(text).keys().collect::<Vec<_>>(),
            "{text}"
        );
        assert_eq!(body.to_tree(usize::MAX).unwrap(), tree(text), "{text}");
    }
    // Values pass as written: whitespace inside them, number spelling.
    let body = parse(r#"{"x": [1,  2.50]}"#);
    assert_eq!(sent(&body), r#"{"x":[1,  2.50]}"#);
}

#[test]
fn a_key_given_twice_keeps_its_first_place_and_its_last_value() {
    let text = r#"{"a": 1, "b": 2, "a": 3, "c": 4, "b": 5, "\u0061": 6}"#;
    let body = parse(text);
    assert_eq!(sent(&body), r#"{"a":6,"b":5,"c":4}"#);
    assert_eq!(body.to_tree(usize::MAX).unwrap(), tree(text));
    assert_eq!(body.get("a"), Some("6"));
}

#[test]
fn set_replaces_in_place_or_appends() {
    let mut body = parse(r#"{"stream": false, "model": "m"}"#);
    body.set("stream", "true").unwrap();
    body.set("stream_options", r#"{"include_usage":true}"#)
        .unwrap();
    assert_eq!(
        sent(&body),
        r#"{"stream":true,"model":"m","stream_options":{"include_usage":true}}"#
    );
    assert_eq!(body.get_str("model").as_deref(), Some("m"));
}

#[test]
fn arrays_grow_by_appended_items() {
    let one = json!({"role": "tool", "content": "r\"1"});
    let two = json!({"role": "user"});
    for (text, expected) in [
        (r#"{"messages": []}"#, json!({"messages": [one, two, two]})),
        (
            r#"{"messages": [ {"role": "user"} ]}"#,
            json!({"messages": [two, one, two, two]}),
        ),
        (
            r#"{"model": "m"}"#,
            json!({"model": "m", "messages": [one, two, two]}),
        ),
        (r#"{"messages": 5}"#, json!({"messages": [one, two, two]})),
    ] {
        let mut body = parse(text);
        body.extend_array("messages", [&one, &two]).unwrap();
        // A second round: the tail grows where it is.
        body.extend_array("messages", [&two]).unwrap();
        body.extend_array("messages", []).unwrap();
        assert_eq!(
            serde_json::from_slice::<Value>(&body.to_vec()).unwrap(),
            expected,
            "{text}"
        );
        assert_eq!(
            Value::Object(body.to_tree(usize::MAX).unwrap()),
            expected,
            "{text}"
        );
    }
    // A tail that no longer ends the text is copied before it grows.
    let mut body = parse(r#"{"messages": [], "tools": []}"#);
    body.extend_array("messages", [&one]).unwrap();
    body.extend_array("tools", [&two]).unwrap();
    body.extend_array("messages", [&two]).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&body.to_vec()).unwrap(),
        json!({"messages": [one, two], "tools": [two]})
    );
}

#[test]
fn bodies_that_are_no_objects_are_told_apart() {
    assert!(ChatJson::parse("[1]".to_owned()).unwrap().is_none());
    assert!(ChatJson::parse("{".to_owned()).is_err());
    assert!(ChatJson::parse("{} x".to_owned()).is_err());
}

#[test]
fn a_written_body_is_read_as_a_parsed_one() {
    let mut writer = ChatJsonWriter::default();
    writer.raw("model", "\"m\"").unwrap();
    writer.raw("n", "[1,2]").unwrap();
    let body = writer.finish();
    assert_eq!(sent(&body), r#"{"model":"m","n":[1,2]}"#);
    assert_eq!(body.get("n"), Some("[1,2]"));
    assert_eq!(sent(&ChatJsonWriter::default().finish()), "{}");
}

#[test]
fn a_tree_is_built_only_of_a_body_within_its_values() {
    // `{"a": [0, 0], "b": {"c": 1}}`: the fields' values hold 3 and 2.
    let body = parse(r#"{"a": [0, 0], "b": {"c": 1}}"#);
    assert!(body.to_tree(5).is_ok());
    let error = body.to_tree(4).unwrap_err();
    assert_eq!(error.status, 413);
    assert_eq!(error.error["code"], "request_too_large");
    let message = error.error["message"].as_str().unwrap();
    assert!(message.contains("more than 4 JSON values"), "{message}");
    // Items appended by the proxy count too: `[]` counts 2 (an empty
    // container one too many), the appended `{"role":"user"}]` 2.
    let mut body = parse(r#"{"messages": []}"#);
    let item = json!({"role": "user"});
    body.extend_array("messages", [&item]).unwrap();
    assert!(body.to_tree(4).is_ok());
    assert!(body.to_tree(3).is_err());
}
