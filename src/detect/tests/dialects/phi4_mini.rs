//! Phi-4-mini: `functools[..]`, off by default.

use super::super::*;

const P: WireFormat = WireFormat::Phi4Mini;

fn phi() -> DetectConfig {
    DetectConfig::default().with_formats([P])
}

#[test]
fn off_by_default() {
    let input = r#"functools[{"name": "ls", "arguments": {}}]"#;
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn parallel_calls_with_text_before_and_after_when_enabled() {
    check_calls_with(
        "Both: functools[{\"name\": \"ls\", \"arguments\": {}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}] ok",
        phi(),
        expect(
            "Both:  ok",
            &[
                ("ls", json!({}), P),
                ("get_weather", json!({"city": "Oslo"}), P),
            ],
            &[],
        ),
    );
}

#[test]
fn prose_unknown_tool_unfinished_call_and_fence() {
    for input in [
        "Use functools[0] or functools.reduce; fun f() {}",
        "```\nfunctools[{\"name\": \"ls\", \"arguments\": {}}]\n```",
    ] {
        check_calls_with(input, phi(), expect(input, &[], &[]));
    }
    let input = r#"functools[{"name": "launch", "arguments": {}}]"#;
    check_calls_with(
        input,
        phi(),
        expect(input, &[], &[DiagnosticKind::UnknownTool]),
    );
    let input = r#"functools[{"name": "ls", "arguments": {"#;
    check_calls_with(
        input,
        phi(),
        expect(input, &[], &[DiagnosticKind::Unfinished]),
    );
}
