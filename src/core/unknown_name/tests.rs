//! Unit tests of the unknown-name error: the known names, the suggestions, the message.

use super::*;

/// A table with an alias and an older spelling.
const NAMES: &[(&str, &str)] = &[
    ("openai-chat", "openai-chat"),
    ("open_ai_chat", "openai-chat"),
    ("anthropic", "anthropic"),
    ("claude", "anthropic"),
    ("xml-text", "xml-text"),
];

fn check(name: &str, suggestions: &[&str], message: &str) {
    let error = UnknownNameError::new("dialect", name, NAMES.iter().copied());
    assert_eq!(error.known, ["openai-chat", "anthropic", "xml-text"]);
    assert_eq!(error.suggestions, suggestions, "{name}");
    assert_eq!(error.to_string(), message);
}

#[test]
fn suggestions_are_known_names_each_once() {
    // Near the older spelling: its known name is suggested.
    check(
        "open_ai_chta",
        &["openai-chat"],
        "unknown dialect `open_ai_chta` (did you mean `openai-chat`?); \
         dialects: openai-chat, anthropic, xml-text",
    );
    // Near the alias.
    check(
        "claud",
        &["anthropic"],
        "unknown dialect `claud` (did you mean `anthropic`?); \
         dialects: openai-chat, anthropic, xml-text",
    );
    check(
        "zzzzzzzz",
        &[],
        "unknown dialect `zzzzzzzz`; dialects: openai-chat, anthropic, xml-text",
    );
}

#[test]
fn several_suggestions_read_as_a_list() {
    let error = UnknownNameError::new("dialect", "text", NAMES.iter().copied());
    let two = UnknownNameError {
        suggestions: vec!["xml-text", "anthropic"],
        ..error.clone()
    };
    assert!(
        two.to_string()
            .starts_with("unknown dialect `text` (did you mean `xml-text` or `anthropic`?);"),
        "{two}"
    );
    let three = UnknownNameError {
        suggestions: vec!["xml-text", "anthropic", "openai-chat"],
        ..error
    };
    assert!(
        three.to_string().starts_with(
            "unknown dialect `text` (did you mean `xml-text`, `anthropic` or `openai-chat`?);"
        ),
        "{three}"
    );
}

#[test]
fn a_huge_name_is_quoted_cut_and_not_compared() {
    let name = "x".repeat(1 << 20);
    let error = UnknownNameError::new("dialect", &name, NAMES.iter().copied());
    assert!(error.suggestions.is_empty());
    assert!(error.to_string().len() < 1024);
}
