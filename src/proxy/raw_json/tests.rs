#![allow(clippy::unwrap_used)]

use std::borrow::Cow;

use serde_json::{Value, json};

use super::*;

#[test]
fn kinds_are_read_from_the_first_byte() {
    for (text, expected) in [
        ("null", Kind::Null),
        ("true", Kind::Bool),
        ("false", Kind::Bool),
        ("-1.5e3", Kind::Number),
        ("0", Kind::Number),
        ("\"x\"", Kind::String),
        ("[1]", Kind::Array),
        ("{}", Kind::Object),
    ] {
        assert_eq!(kind(text), expected, "{text}");
    }
}

#[test]
fn strings_are_borrowed_unless_they_have_escapes() {
    assert!(matches!(string("\"plain\""), Some(Cow::Borrowed("plain"))));
    let escaped = string(r#""a\"b\u00e9""#).unwrap();
    assert!(matches!(escaped, Cow::Owned(_)));
    assert_eq!(escaped, "a\"bé");
    assert_eq!(string("5"), None);
    assert_eq!(boolean("true"), Some(true));
    assert_eq!(boolean("\"true\""), None);
    assert_eq!(unsigned("1"), Some(1));
    assert_eq!(unsigned("1.0"), None);
    assert_eq!(unsigned("-1"), None);
}

#[test]
fn picked_keys_keep_their_last_value_and_others_are_skipped() {
    let text = r#"{"a": 1, "b": [1, {"a": 9}], "a": "two", "c\u0061": true}"#;
    let [a, b, ca, missing] = pick(text, ["a", "b", "ca", "d"]).unwrap().unwrap();
    assert_eq!(a, Some("\"two\""));
    assert_eq!(b, Some("[1, {\"a\": 9}]"));
    assert_eq!(ca, Some("true"));
    assert_eq!(missing, None);
    assert_eq!(pick("[1]", ["a"]).unwrap(), None);
    assert_eq!(get(text, "b").unwrap(), Some("[1, {\"a\": 9}]"));
}

#[test]
fn elements_and_fields_come_in_order() {
    let mut seen = Vec::new();
    assert!(
        each(r#"[1, "x", {"k": []}]"#, |n, v| {
            seen.push((n, v.to_owned()));
            Ok(())
        })
        .unwrap()
    );
    assert_eq!(
        seen,
        [
            (0, "1".to_owned()),
            (1, "\"x\"".to_owned()),
            (2, "{\"k\": []}".to_owned())
        ]
    );
    assert!(!each("{}", |_, _| Ok(())).unwrap());
    let mut keys = Vec::new();
    fields(r#"{"a": 1, "a": 2, "b\n": 3}"#, |k, v| {
        keys.push((k.into_owned(), v.to_owned()));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        keys,
        [
            ("a".to_owned(), "1".to_owned()),
            ("a".to_owned(), "2".to_owned()),
            ("b\n".to_owned(), "3".to_owned())
        ]
    );
}

#[test]
fn an_error_of_the_callback_stops_the_walk() {
    let mut n_seen = 0;
    let error = each("[1, 2, 3]", |n, _| {
        n_seen += 1;
        if n == 1 {
            Err(ApiError::bad_request("stop", None))
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert_eq!(error.error["message"], "stop");
    assert_eq!(n_seen, 2);
}

#[test]
fn minified_text_is_the_same_json_without_whitespace() {
    let text = "{ \"a\" : [ 1 ,\n\t2 ] , \"s\" : \"x y\\\" z\\\\\" }";
    let out = minified(text);
    assert_eq!(out, r#"{"a":[1,2],"s":"x y\" z\\"}"#);
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        serde_json::from_str::<Value>(text).unwrap()
    );
}

#[test]
fn strings_are_escaped_as_serde_json_escapes_them() {
    let mut every: String = (0u8..0x80).map(char::from).collect();
    every.push_str("é ☃ 𝄞 \u{2028}");
    let mut out = String::new();
    push_str(&mut out, &every);
    assert_eq!(out, serde_json::to_string(&every).unwrap());
    let mut json = String::new();
    push_json(&mut json, &json!({"k": [1, "v"]}));
    assert_eq!(json, r#"{"k":[1,"v"]}"#);
}

#[test]
fn a_body_that_is_no_json_or_no_object_is_told_apart() {
    assert!(object_text(b"{\"a\": 1}").unwrap().is_some());
    assert!(object_text(b" [1, 2] ").unwrap().is_none());
    let error = object_text(b"{").unwrap_err();
    assert!(
        error.error["message"]
            .as_str()
            .unwrap()
            .starts_with("the request body is not valid JSON")
    );
    assert!(object_text(b"{\"a\": \"\xff\"}").is_err());
}

#[test]
fn the_values_a_tree_would_hold_are_counted_up_to_a_limit() {
    // A scalar; an object of two members (3); an array of two objects of
    // one member each (5); brackets and commas inside strings are text.
    assert_eq!(values("7", 100), 1);
    assert_eq!(values(r#"{"a":1,"b":"x"}"#, 100), 3);
    assert_eq!(values(r#"[{"a":0},{"a":0}]"#, 100), 5);
    assert_eq!(values(r#"["[{,", "\"{,"]"#, 100), 3);
    // An empty container counts one too many.
    assert_eq!(values("[]", 100), 2);
    // Past the limit the count stops: one more than the limit.
    assert_eq!(values("[0,0,0,0,0,0,0,0,0,0]", 4), 5);
}
