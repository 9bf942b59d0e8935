//! Malformed input for every adapter: bad JSON in a frame, a provider error, a stream
//! cut mid-call, corrupt binary frames, over-long lines. Never a panic; a clear error
//! delta; the text received so far kept.

use serde_json::json;
use toolrouter_providers::{AdapterConfig, AdapterError, ErrorKind, ProviderDelta, Wire};

use crate::support::{deltas, errors, summarise};

/// Encodes one event-stream frame with string headers (independent of the crate's decoder).
pub(crate) fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut out = Vec::new();
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

fn event(name: &str, body: &str) -> Vec<u8> {
    frame(
        &[(":message-type", "event"), (":event-type", name)],
        body.as_bytes(),
    )
}

/// Per wire: a frame with text "A", a frame of bad JSON, a frame with text "B", an
/// open call with half its arguments, then nothing (cut).
fn bad_then_cut(wire: Wire) -> Vec<u8> {
    let s = |frames: &[&str]| {
        frames
            .iter()
            .map(|f| format!("data: {f}\n\n"))
            .collect::<String>()
            .into_bytes()
    };
    match wire {
        Wire::OpenAiChat => s(&[
            r#"{"choices":[{"index":0,"delta":{"content":"A"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"#,
            r#"{"choices":[{"index":0,"delta":{"content":"B","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"x\":"}}]}}]}"#,
        ]),
        Wire::OpenAiResponses => s(&[
            r#"{"type":"response.output_text.delta","delta":"A"}"#,
            r#"{"type":"response.output_text.delta","delta":"#,
            r#"{"type":"response.output_text.delta","delta":"B"}"#,
            r#"{"type":"response.output_item.added","output_index":1,"item":{"id":"fc","type":"function_call","call_id":"c","name":"f","arguments":""}}"#,
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":1,"delta":"{\"x\":"}"#,
        ]),
        Wire::Anthropic => s(&[
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"A"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"B"}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"c","name":"f","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"x\":"}}"#,
        ]),
        Wire::Gemini => s(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"A"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"B"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","willContinue":true}}]}}]}"#,
        ]),
        Wire::Ollama => concat!(
            r#"{"message":{"content":"A"},"done":false}"#, "\n",
            r#"{"message":{"content":"#, "\n",
            r#"{"message":{"content":"B"},"done":false}"#, "\n",
        ).as_bytes().to_vec(),
        Wire::Bedrock => concat!(
            r#"{"contentBlockDelta":{"delta":{"text":"A"},"contentBlockIndex":0}}"#, "\n",
            r#"{"contentBlockDelta":{"delta":{"text":"#, "\n",
            r#"{"contentBlockDelta":{"delta":{"text":"B"},"contentBlockIndex":0}}"#, "\n",
            r#"{"contentBlockStart":{"start":{"toolUse":{"toolUseId":"c","name":"f"}},"contentBlockIndex":1}}"#, "\n",
            r#"{"contentBlockDelta":{"delta":{"toolUse":{"input":"{\"x\":"}},"contentBlockIndex":1}}"#, "\n",
        ).as_bytes().to_vec(),
        _ => unreachable!(),
    }
}

#[test]
fn bad_json_frame_is_skipped_and_a_cut_stream_is_reported_for_every_wire() {
    for wire in Wire::ALL {
        let bytes = bad_then_cut(wire);
        // Byte by byte as well as whole: same outcome.
        let cuts: Vec<usize> = (1..bytes.len()).collect();
        for d in [
            deltas(wire, &bytes),
            crate::support::deltas_split(wire, &bytes, &cuts),
        ] {
            let kinds: Vec<ErrorKind> = errors(&d).into_iter().map(|(k, _)| k).collect();
            assert_eq!(
                kinds,
                vec![ErrorKind::Malformed, ErrorKind::Truncated],
                "{wire}: {d:?}"
            );
            let (_, message) = &errors(&d)[0];
            assert!(
                message.starts_with("bad json in frame"),
                "{wire}: {message}"
            );
            let s = summarise(&d);
            assert_eq!(s.text, "AB", "{wire}");
            assert!(s.calls.is_empty(), "{wire}");
            assert_eq!(s.stop.as_str(), "error", "{wire}");
            if wire != Wire::Ollama {
                // The open call is reported as cut off, never as runnable.
                assert_eq!(s.partial_calls.len(), 1, "{wire}: {s:?}");
                assert_eq!(s.partial_calls[0].name, "f");
            }
        }
    }
}

#[test]
fn provider_error_event_for_every_wire() {
    let s = |frames: &[&str]| {
        frames
            .iter()
            .map(|f| format!("data: {f}\n\n"))
            .collect::<String>()
            .into_bytes()
    };
    let cases: Vec<(Wire, Vec<u8>)> = vec![
        (Wire::OpenAiChat, s(&[r#"{"choices":[{"index":0,"delta":{"content":"so far"}}]}"#, r#"{"error":{"message":"E1"}}"#])),
        (Wire::OpenAiResponses, s(&[r#"{"type":"response.output_text.delta","delta":"so far"}"#, r#"{"type":"error","code":"x","message":"E1"}"#, r#"{"type":"response.failed","response":{"status":"failed","error":{"message":"E1"}}}"#])),
        (Wire::Anthropic, b"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"so far\"}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"E1\"}}\n\n".to_vec()),
        (Wire::Gemini, s(&[r#"{"candidates":[{"content":{"parts":[{"text":"so far"}]}}]}"#, r#"{"error":{"code":503,"message":"E1","status":"UNAVAILABLE"}}"#])),
        (Wire::Ollama, b"{\"message\":{\"content\":\"so far\"},\"done\":false}\n{\"error\":\"E1\"}\n".to_vec()),
        (Wire::Bedrock, [event("contentBlockDelta", r#"{"delta":{"text":"so far"},"contentBlockIndex":0}"#),
            frame(&[(":message-type", "exception"), (":exception-type", "modelStreamErrorException")], br#"{"message":"E1"}"#)].concat()),
    ];
    for (wire, bytes) in cases {
        let d = deltas(wire, &bytes);
        assert_eq!(
            errors(&d),
            vec![(ErrorKind::Provider, "E1".to_owned())],
            "{wire}"
        );
        assert_eq!(
            summarise(&d).to_json(),
            json!({"text":"so far","calls":[],"stop":"error","error":{"message":"E1"}}),
            "{wire}"
        );
    }
}

#[test]
fn bedrock_error_message_frame_uses_its_headers() {
    let bytes = frame(
        &[
            (":message-type", "error"),
            (":error-code", "InternalFailure"),
            (":error-message", "it broke"),
        ],
        b"",
    );
    let d = deltas(Wire::Bedrock, &bytes);
    assert_eq!(
        errors(&d),
        vec![(ErrorKind::Provider, "it broke".to_owned())]
    );
}

#[test]
fn bedrock_message_checksum_mismatch_skips_one_frame_only() {
    let mut bad = event(
        "contentBlockDelta",
        r#"{"delta":{"text":"lost"},"contentBlockIndex":0}"#,
    );
    let n = bad.len();
    bad[n - 6] ^= 0x20; // a payload byte: the message CRC no longer matches
    let bytes = [
        event(
            "contentBlockDelta",
            r#"{"delta":{"text":"a"},"contentBlockIndex":0}"#,
        ),
        bad,
        event(
            "contentBlockDelta",
            r#"{"delta":{"text":"b"},"contentBlockIndex":0}"#,
        ),
        event("messageStop", r#"{"stopReason":"end_turn"}"#),
    ]
    .concat();
    let d = deltas(Wire::Bedrock, &bytes);
    assert_eq!(
        errors(&d).into_iter().map(|(k, _)| k).collect::<Vec<_>>(),
        vec![ErrorKind::Checksum]
    );
    let s = summarise(&d);
    assert_eq!((s.text.as_str(), s.stop.as_str()), ("ab", "end_turn"));
}

#[test]
fn bedrock_corrupt_prelude_loses_sync_for_good() {
    let good = event(
        "contentBlockDelta",
        r#"{"delta":{"text":"kept"},"contentBlockIndex":0}"#,
    );
    let mut bad = event("messageStop", r#"{"stopReason":"end_turn"}"#);
    bad[2] ^= 0xff; // total length: the prelude CRC no longer matches
    let mut adapter = Wire::Bedrock.adapter();
    let mut out = Vec::new();
    adapter.feed(&good, &mut out).unwrap();
    let err = adapter.feed(&bad, &mut out).unwrap_err();
    assert!(matches!(err, AdapterError::LostSync { .. }), "{err}");
    assert!(err.to_string().contains("prelude checksum"), "{err}");
    assert!(adapter.feed(&good, &mut out).is_err());
    assert_eq!(summarise(&out).text, "kept");
}

#[test]
fn bedrock_frame_cut_short_is_reported() {
    let whole = event(
        "contentBlockDelta",
        r#"{"delta":{"text":"x"},"contentBlockIndex":0}"#,
    );
    let d = deltas(Wire::Bedrock, &whole[..whole.len() - 3]);
    let kinds: Vec<ErrorKind> = errors(&d).into_iter().map(|(k, _)| k).collect();
    assert_eq!(kinds, vec![ErrorKind::Truncated, ErrorKind::Truncated]);
}

#[test]
fn oversized_frames_are_dropped_with_an_error_and_reading_goes_on() {
    let config = AdapterConfig {
        max_frame_bytes: 200,
    };
    let big = format!(
        r#"data: {{"choices":[{{"index":0,"delta":{{"content":"{}"}}}}]}}"#,
        "x".repeat(500)
    );
    let bytes = format!(
        "{big}\n\ndata: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"ok\"}},\"finish_reason\":\"stop\"}}]}}\n\n"
    );
    for piece in [7usize, 64, 4096] {
        let mut adapter = Wire::OpenAiChat.adapter_with(config);
        let mut out = Vec::new();
        for chunk in bytes.as_bytes().chunks(piece) {
            adapter.feed(chunk, &mut out).unwrap();
        }
        adapter.finish(&mut out).unwrap();
        assert_eq!(
            errors(&out).into_iter().map(|(k, _)| k).collect::<Vec<_>>(),
            vec![ErrorKind::TooLarge],
            "piece {piece}"
        );
        let s = summarise(&out);
        assert_eq!((s.text.as_str(), s.stop.as_str()), ("ok", "end_turn"));
    }

    let mut adapter = Wire::Bedrock.adapter_with(config);
    let mut out = Vec::new();
    let huge = event(
        "contentBlockDelta",
        &format!(
            r#"{{"delta":{{"text":"{}"}},"contentBlockIndex":0}}"#,
            "y".repeat(300)
        ),
    );
    let small = event(
        "contentBlockDelta",
        r#"{"delta":{"text":"z"},"contentBlockIndex":0}"#,
    );
    for chunk in [huge, small].concat().chunks(50) {
        adapter.feed(chunk, &mut out).unwrap();
    }
    assert_eq!(
        errors(&out).into_iter().map(|(k, _)| k).collect::<Vec<_>>(),
        vec![ErrorKind::TooLarge]
    );
    assert_eq!(summarise(&out).text, "z");
}

#[test]
fn garbage_never_panics() {
    // Arbitrary bytes, valid JSON of the wrong shape, invalid UTF-8.
    let inputs: [&[u8]; 6] = [
        b"\x00\x01\x02\xff\xfe",
        b"data: [1,2,3]\n\ndata: \"s\"\n\ndata: null\n\n",
        b"data: {\"choices\":\"no\",\"candidates\":5,\"message\":[],\"type\":7}\n\n",
        b"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":\"x\",\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\n",
        b"\xf0\x9f\x9a\n\r\r\n:\n\x80",
        b"[1]\n{\"messageStop\":7}\n{\"contentBlockDelta\":{\"delta\":{\"toolUse\":{\"input\":5}}}}\n",
    ];
    for wire in Wire::ALL {
        for input in inputs {
            for piece in [1, 3, input.len().max(1)] {
                let mut adapter = wire.adapter();
                let mut out = Vec::new();
                let mut lost = false;
                for chunk in input.chunks(piece) {
                    // Binary garbage may lose the event-stream sync: an error, not a panic.
                    lost |= adapter.feed(chunk, &mut out).is_err();
                }
                lost |= adapter.finish(&mut out).is_err();
                assert!(!lost || wire == Wire::Bedrock, "{wire}");
                let _ = summarise(&out);
            }
        }
    }
}

#[test]
fn anthropic_call_closed_by_max_tokens_with_broken_json_is_partial() {
    let bytes = b"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\": [1,\"}}\n\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}\n\n";
    let d = deltas(Wire::Anthropic, bytes);
    assert!(
        d.iter()
            .any(|x| matches!(x, ProviderDelta::ToolCallEnd { .. }))
    );
    assert_eq!(
        summarise(&d).to_json(),
        json!({"text":"","calls":[],"stop":"max_tokens",
        "partial_calls":[{"id":"t","name":"f","raw_arguments":"{\"a\": [1,"}]})
    );
}
