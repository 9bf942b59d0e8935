//! Reasoning blocks: `<think>` at the start of the message, the prompt-opened
//! block, and what is never reasoning.

use super::*;

fn with_reasoning(text: &str, reasoning: &str, calls: &[(&str, Value, WireFormat)]) -> Outcome {
    Outcome {
        reasoning: reasoning.to_owned(),
        ..expect(text, calls, &[])
    }
}

#[test]
fn think_at_the_start_is_reasoning_and_the_whitespace_after_stays_with_the_text() {
    check_calls(
        "<think>\nThe user wants a file.\n</think>\n\nSure.",
        with_reasoning("\n\nSure.", "\nThe user wants a file.\n", &[]),
    );
}

#[test]
fn markup_inside_reasoning_is_never_a_call() {
    check_calls(
        "<think>maybe <read_file><path>a</path></read_file>?</think>\n<read_file><path>b</path></read_file>",
        with_reasoning(
            "",
            "maybe <read_file><path>a</path></read_file>?",
            &[("read_file", json!({"path": "b"}), WireFormat::Xml)],
        ),
    );
}

#[test]
fn think_after_visible_text_stays_text_unless_configured() {
    let input = "The tag <think>x</think> is how models reason.";
    check_calls(input, expect(input, &[], &[]));
    let config = DetectConfig {
        reasoning_anywhere: true,
        ..DetectConfig::default()
    };
    check_calls_with(
        input,
        config,
        with_reasoning("The tag  is how models reason.", "x", &[]),
    );
}

#[test]
fn a_block_opened_by_the_prompt_ends_at_the_first_closing_tag() {
    check_calls_with(
        "Plan: read b.\n</think>\n\n<read_file><path>b</path></read_file>",
        DetectConfig::default().starting_in_reasoning(),
        with_reasoning(
            "",
            "Plan: read b.\n",
            &[("read_file", json!({"path": "b"}), WireFormat::Xml)],
        ),
    );
}

#[test]
fn an_unclosed_block_at_the_end_of_the_stream_is_reasoning_cut_short() {
    check_calls(
        "<think>still thinking </thi",
        with_reasoning("", "still thinking </thi", &[]),
    );
    check_calls_with(
        "no closing tag",
        DetectConfig::default().starting_in_reasoning(),
        with_reasoning("", "no closing tag", &[]),
    );
}

#[test]
fn reasoning_is_streamed_before_the_block_closes() {
    let mut detector = StreamDetector::new(catalog(), DetectConfig::default());
    let mut events = Vec::new();
    detector.feed("<think>first </th", &mut events);
    assert_eq!(
        events,
        vec![DetectEvent::Reasoning {
            text: "first ".into()
        }],
        "the possible closing tag is held back, the rest streamed"
    );
    events.clear();
    detector.feed("ought</think>ok", &mut events);
    detector.finish(&mut events);
    assert_eq!(
        events,
        vec![
            DetectEvent::Reasoning {
                text: "</thought".into()
            },
            DetectEvent::Text { text: "ok".into() }
        ]
    );
}

#[test]
fn think_is_only_a_format_where_enabled() {
    let input = "<think>x</think>y";
    check_calls_with(
        input,
        DetectConfig::only(WireFormat::Xml),
        expect(input, &[], &[]),
    );
}
