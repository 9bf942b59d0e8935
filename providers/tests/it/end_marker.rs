//! The wire's end marker ends the answer: `is_done` turns true on the byte
//! that completes it (`data: [DONE]`, `message_stop`, `response.completed`,
//! Ollama's `done: true` line, Bedrock's `metadata` after `messageStop`),
//! never before, and what comes after it is not read. Gemini has no marker.

use toolrouter_providers::{ProviderDelta, Wire};

use crate::support::{errors, summarise};

/// Per wire: the answer `A` with a natural stop and the wire's end marker,
/// then a frame with text `Z` that must not be read.
fn answer_then_more(wire: Wire) -> (Vec<u8>, Vec<u8>) {
    let sse = |frames: &[&str]| {
        frames
            .iter()
            .map(|f| format!("data: {f}\n\n"))
            .collect::<String>()
            .into_bytes()
    };
    let lines = |lines: &[&str]| {
        lines
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .into_bytes()
    };
    match wire {
        Wire::OpenAiChat => (
            sse(&[
                r#"{"choices":[{"index":0,"delta":{"content":"A"}}]}"#,
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
                "[DONE]",
            ]),
            sse(&[r#"{"choices":[{"index":0,"delta":{"content":"Z"}}]}"#]),
        ),
        Wire::Anthropic => (
            sse(&[
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"A"}}"#,
                r#"{"type":"content_block_stop","index":0}"#,
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
                r#"{"type":"message_stop"}"#,
            ]),
            sse(&[
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Z"}}"#,
            ]),
        ),
        Wire::OpenAiResponses => (
            sse(&[
                r#"{"type":"response.output_text.delta","delta":"A"}"#,
                r#"{"type":"response.completed","response":{"status":"completed"}}"#,
            ]),
            sse(&[r#"{"type":"response.output_text.delta","delta":"Z"}"#]),
        ),
        Wire::Ollama => (
            lines(&[
                r#"{"message":{"content":"A"},"done":false}"#,
                r#"{"message":{"content":""},"done":true,"done_reason":"stop"}"#,
            ]),
            lines(&[r#"{"message":{"content":"Z"},"done":false}"#]),
        ),
        Wire::Bedrock => (
            lines(&[
                r#"{"contentBlockDelta":{"delta":{"text":"A"},"contentBlockIndex":0}}"#,
                r#"{"messageStop":{"stopReason":"end_turn"}}"#,
                r#"{"metadata":{"usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2}}}"#,
            ]),
            lines(&[r#"{"contentBlockDelta":{"delta":{"text":"Z"},"contentBlockIndex":0}}"#]),
        ),
        Wire::Gemini => (
            sse(&[
                r#"{"candidates":[{"content":{"parts":[{"text":"A"}]},"finishReason":"STOP"}]}"#,
            ]),
            sse(&[r#"{"candidates":[{"content":{"parts":[{"text":"Z"}]}}]}"#]),
        ),
        _ => unreachable!(),
    }
}

#[test]
fn the_end_marker_ends_the_answer_and_what_follows_is_not_read() {
    for wire in Wire::ALL {
        let (answer, more) = answer_then_more(wire);
        let bytes = [answer.clone(), more].concat();
        let mut adapter = wire.adapter();
        let mut out: Vec<ProviderDelta> = Vec::new();
        let mut done_at = None;
        for (at, byte) in bytes.iter().enumerate() {
            adapter.feed(std::slice::from_ref(byte), &mut out).unwrap();
            if adapter.is_done() && done_at.is_none() {
                done_at = Some(at + 1);
            }
        }
        adapter.finish(&mut out).unwrap();
        let s = summarise(&out);
        assert_eq!(errors(&out), vec![], "{wire}");
        assert_eq!(s.stop.as_str(), "end_turn", "{wire}");
        if wire == Wire::Gemini {
            // No marker: the answer ends with the bytes, all of them read.
            assert_eq!(done_at, None, "{wire}");
            assert_eq!(s.text, "AZ", "{wire}");
        } else {
            assert_eq!(done_at, Some(answer.len()), "{wire}");
            assert_eq!(s.text, "A", "{wire}");
        }
    }
}

#[test]
fn bedrock_metadata_without_message_stop_is_no_end() {
    let bytes = concat!(
        r#"{"contentBlockDelta":{"delta":{"text":"A"},"contentBlockIndex":0}}"#,
        "\n",
        r#"{"metadata":{"usage":{"inputTokens":1}}}"#,
        "\n",
        r#"{"contentBlockDelta":{"delta":{"text":"B"},"contentBlockIndex":0}}"#,
        "\n",
    );
    let mut adapter = Wire::Bedrock.adapter();
    let mut out = Vec::new();
    adapter.feed(bytes.as_bytes(), &mut out).unwrap();
    assert!(!adapter.is_done());
    assert_eq!(summarise(&out).text, "AB");
}
