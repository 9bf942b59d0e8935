//! Inputs the fuzz targets found, one test each.

use super::*;

/// Feeds `input` whole and in `step`-byte deltas; both must agree.
fn agree(input: &str, step: usize) {
    agree_with(input, step, DetectConfig::default());
}

fn agree_with(input: &str, step: usize, config: DetectConfig) {
    let (whole, regions) = run_pieces(&[input], config.clone());
    conserved(input, &whole.text, &regions);
    let mut pieces = Vec::new();
    let mut pos = 0;
    while pos < input.len() {
        let mut end = (pos + step).min(input.len());
        while !input.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&input[pos..end]);
        pos = end;
    }
    let (mut split, _) = run_pieces(&pieces, config);
    let mut whole = whole;
    split.ids.clear();
    whole.ids.clear();
    assert_eq!(split, whole, "step {step}");
}

#[test]
fn fuzz_crash_1_long_fence_info_line() {
    let data = include_bytes!("fuzz_crash_1.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, 4);
}

#[test]
fn fuzz_crash_2_fence_longer_than_the_look_ahead() {
    let data = include_bytes!("fuzz_crash_2.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, usize::from(data[0] % 17) + 1);
    let fence = format!("\n{}\n<ls></ls>", "`".repeat(300));
    agree(&fence, 1);
    agree(&fence, 7);
}

#[test]
fn fuzz_crash_3() {
    let data = include_bytes!("fuzz_crash_3.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, usize::from(data[0] % 17) + 1);
}

#[test]
fn fuzz_crash_4() {
    let data = include_bytes!("fuzz_crash_4.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree_with(
        &input,
        usize::from(data[0] % 17) + 1,
        DetectConfig::only(WireFormat::JsonToolUse),
    );
}

/// Found by the hermes fuzz target in a 10-minute run: an `arguments` string
/// holding only whitespace, some of it not JSON whitespace (U+000B), was taken
/// as "no arguments" (`{}`) after its characters had already been streamed as
/// argument deltas, so the deltas were not the arguments' JSON.
#[test]
fn fuzz_crash_5_arguments_of_non_json_whitespace() {
    let input = "<tool_call>{\"name\":\"ls\",\"arguments\":\"\\t\u{b}\\t\"}</tool_call>";
    let (whole, regions) = run_pieces(&[input], DetectConfig::default());
    conserved(input, &whole.text, &regions);
    assert!(whole.calls.is_empty(), "{:?}", whole.calls);
    assert_eq!(whole.malformed, [DiagnosticKind::Invalid]);
    assert_eq!(whole.text, input, "the markup comes back as text");
    for step in [1, 3, 7] {
        agree(input, step);
    }
    let data = include_bytes!("fuzz_crash_5.bin");
    let found = String::from_utf8_lossy(&data[1..]);
    agree(&found, usize::from(data[0] % 17) + 1);
    // JSON whitespace alone still means "no arguments".
    let blank = "<tool_call>{\"name\":\"ls\",\"arguments\":\" \\t \"}</tool_call>";
    let (out, _) = run_pieces(&[blank], DetectConfig::default());
    assert_eq!(out.calls.len(), 1);
    assert_eq!(out.calls[0].1, serde_json::json!({}));
}

/// Found by the json_tool_use fuzz target in the same 10-minute runs, before the
/// fix above.
#[test]
fn fuzz_crash_6() {
    let data = include_bytes!("fuzz_crash_6.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, usize::from(data[0] % 17) + 1);
    agree(&input, 1);
}

/// Found by the auto-detection fuzz target in a 10-minute run: a Kimi K2 call
/// header just over the length limit was too long when the deltas cut it
/// inside `<|tool_call_argument_begin|>` (the text held so far was measured)
/// but unfinished when the whole header arrived at once (a complete header was
/// not measured). The limit now applies to the header alone.
#[test]
fn fuzz_crash_7_header_limit_independent_of_cuts() {
    let data = include_bytes!("fuzz_crash_7.bin");
    let found = String::from_utf8_lossy(&data[1..]);
    agree(&found, usize::from(data[0] % 17) + 1);
    let section = "<|tool_calls_section_begin|><|tool_call_begin|>";
    // The header: `functions.` + name + `:0` + the argument token (40 bytes
    // besides the name), then the stream ends before the arguments. 512 bytes
    // is the limit.
    for (name_len, kind) in [
        (460, DiagnosticKind::Unfinished),
        (472, DiagnosticKind::Unfinished),
        (473, DiagnosticKind::Invalid),
        (520, DiagnosticKind::Invalid),
    ] {
        let input = format!(
            "{section}functions.{}:0<|tool_call_argument_begin|>",
            "x".repeat(name_len)
        );
        let (whole, _) = run_pieces(&[&input], DetectConfig::default());
        assert_eq!(whole.malformed, [kind], "name of {name_len} bytes");
        for step in [1, 4, 7, 64] {
            agree(&input, step);
        }
    }
}

/// Found by the dialects fuzz target in a 10-minute run: in an Olmo 3 block,
/// whitespace after a call longer than the held run (64 bytes) went into the
/// call region when the deltas ended inside it, but stayed text when the text
/// after it arrived in the same delta. A run that long now ends the block
/// before it, whatever follows.
#[test]
fn fuzz_crash_8_long_whitespace_after_a_block_call() {
    let every = || DetectConfig::default().with_formats(crate::detect::text_formats());
    let data = include_bytes!("fuzz_crash_8.bin");
    let found = String::from_utf8_lossy(&data[1..]);
    agree_with(&found, usize::from(data[0] % 17) + 1, every());
    for (gap, ends) in [(64, false), (65, true)] {
        let input = format!(
            "<function_calls>ls()\n{}get_weather(city=\"Oslo\")</function_calls> ok",
            " ".repeat(gap - 1)
        );
        let (whole, _) = run_pieces(&[&input], every());
        if ends {
            // The block ends after `ls()`; the rest is text.
            assert_eq!(whole.calls.len(), 1, "gap {gap}");
            assert_eq!(
                whole.text,
                input["<function_calls>ls()".len()..],
                "gap {gap}"
            );
        } else {
            assert_eq!(whole.calls.len(), 2, "gap {gap}");
            assert_eq!(whole.text, " ok", "gap {gap}");
        }
        for step in [1, 4, 7, 64] {
            agree_with(&input, step, every());
        }
    }
}

/// Found by the Olmo 3 fuzz target in a 10-minute run: whether a Python
/// number had a radix prefix (`0x`, `0o`, `0b`, after which `e-` is no
/// exponent) was read from the part of the token already held, so `7o77e-`
/// cut after `7o` was judged as a radix number and whole as a decimal one.
/// The prefix is now read from the whole token.
#[test]
fn fuzz_crash_9_radix_prefix_read_from_the_whole_token() {
    let olmo = || DetectConfig::only(WireFormat::Olmo3);
    let data = include_bytes!("fuzz_crash_9.bin");
    let found = String::from_utf8_lossy(&data[1..]);
    agree_with(&found, usize::from(data[0] % 17) + 1, olmo());
    for input in [
        "<function_calls>ls(a=7o77e-",
        "<function_calls>ls(a=1e-5)</function_calls>",
        "<function_calls>ls(a=0x1e-5)</function_calls>",
    ] {
        for step in 1..=8 {
            agree_with(input, step, olmo());
        }
    }
    // `1e-5` is a number; in `0x1e-5` the sign ends the hex number `0x1e`,
    // and what follows is not a literal.
    let (out, _) = run_pieces(&["<function_calls>ls(a=1e-5)</function_calls>"], olmo());
    assert_eq!(out.calls.len(), 1);
    assert_eq!(out.calls[0].1, serde_json::json!({"a": 0.00001}));
    let hex = "<function_calls>ls(a=0x1e-5)</function_calls>";
    let (out, _) = run_pieces(&[hex], olmo());
    assert!(out.calls.is_empty(), "{:?}", out.calls);
    assert_eq!(out.malformed, [DiagnosticKind::Invalid]);
    assert_eq!(out.text, hex);
}

/// Found by the auto-detection fuzz target on the first run after arguments
/// objects began to be read back from the region at the end of the call: a
/// Cohere action list whose element names `parameters` twice (a string, then
/// an object) streamed both values as deltas but took only the second from
/// the region, so a call ended whose deltas were not its arguments. A
/// repeated key now makes its arguments what both values make together, as
/// before: here not a JSON object, so no call.
#[test]
fn fuzz_crash_10_arguments_key_given_twice() {
    let data = include_bytes!("fuzz_crash_10.bin");
    let found = String::from_utf8_lossy(&data[1..]);
    for step in [1, 4, usize::from(data[0] % 17) + 1, 64] {
        agree(&found, step);
    }
    // "0" then {"a":1} is `0{"a":1}`; two objects are `{"a":1}{"b":2}`:
    // neither is an object, so the markup comes back as text.
    for input in [
        r#"<tool_call>{"name":"ls","arguments":"0","arguments":{"a":1}}</tool_call>"#,
        r#"<tool_call>{"name":"ls","arguments":{"a":1},"arguments":{"b":2}}</tool_call>"#,
        r#"<tool_call>{"arguments":{"a":1},"name":"ls","arguments":{"b":2}}</tool_call>"#,
    ] {
        let (out, regions) = run_pieces(&[input], DetectConfig::default());
        conserved(input, &out.text, &regions);
        assert!(out.calls.is_empty(), "{input}: {:?}", out.calls);
        assert_eq!(out.malformed, [DiagnosticKind::Invalid], "{input}");
        assert_eq!(out.text, input, "{input}");
        for step in [1, 3] {
            agree(input, step);
        }
    }
    // Whitespace and an object, either way round, is an object: `  {"a":1}`,
    // `{"a":1}  ` (the first value read from the region, then copied).
    for (input, deltas) in [
        (
            r#"<tool_call>{"name":"ls","arguments":"  ","arguments":{"a":1}}</tool_call>"#,
            r#"  {"a":1}"#,
        ),
        (
            r#"<tool_call>{"name":"ls","arguments":{"a":1},"arguments":"  "}</tool_call>"#,
            r#"{"a":1}  "#,
        ),
    ] {
        let (out, _) = run_pieces(&[input], DetectConfig::default());
        assert_eq!(out.calls.len(), 1, "{input}");
        assert_eq!(out.calls[0].1, serde_json::json!({"a": 1}));
        assert_eq!(out.deltas, [deltas]);
        for step in [1, 3] {
            agree(input, step);
        }
    }
}

/// One broken call in a shared section took its neighbours down (the
/// whole section came back as text, or the calls after it did, with the
/// section's end token in the visible text). Now only its element comes back,
/// after the section's calls; the broken call's `CallStart` and arguments
/// stand without a `CallEnd`, and its `Malformed` names it.
#[test]
fn a_broken_call_keeps_its_neighbours() {
    let bad = "<｜tool▁call▁begin｜>ls<｜tool▁sep｜>{bad}<｜tool▁call▁end｜>";
    let input = format!(
        "<｜tool▁calls▁begin｜>{bad}<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{\"x\": 1}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    );
    let events = without_call_ids(crate::detect::detect_all(
        &input,
        catalog(),
        DetectConfig::default(),
    ));
    let ends: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallEnd { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [1], "only the second call ends: {events:?}");
    assert!(
        matches!(&events[0], DetectEvent::CallStart { index: 0, name, .. } if name == "ls"),
        "{events:?}"
    );
    let n = events.len();
    match &events[n - 2] {
        DetectEvent::Malformed { diagnostic } => {
            assert_eq!(diagnostic.kind, DiagnosticKind::Invalid);
            assert_eq!(diagnostic.name.as_deref(), Some("ls"));
            assert_eq!(diagnostic.raw, bad);
        }
        other => panic!("expected the broken call's diagnostic, got {other:?}"),
    }
    assert!(
        matches!(&events[n - 1], DetectEvent::Text { text } if text == bad),
        "{events:?}"
    );
    for step in [1, 3, 7, 64] {
        agree(&input, step);
    }
}

/// In the pythonic lists (vLLM `test_bad_sibling_call_does_not_drop_good_calls`):
/// a call with a `b'…'` argument made the whole list text, its good sibling
/// with it. Now only the broken call comes back, after the list's calls; its
/// `CallStart` and the arguments it had stand without a `CallEnd`.
#[test]
fn a_broken_pythonic_call_keeps_its_neighbours() {
    let bad = "search(query=b'z')";
    let input = format!("[{bad}, ls()]");
    let events = without_call_ids(crate::detect::detect_all(
        &input,
        catalog(),
        DetectConfig::default(),
    ));
    let ends: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallEnd { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(ends, [1], "only the second call ends: {events:?}");
    assert!(
        matches!(&events[0], DetectEvent::CallStart { index: 0, name, .. } if name == "search"),
        "{events:?}"
    );
    let n = events.len();
    match &events[n - 2] {
        DetectEvent::Malformed { diagnostic } => {
            assert_eq!(diagnostic.kind, DiagnosticKind::Invalid);
            assert_eq!(diagnostic.name.as_deref(), Some("search"));
            assert_eq!(diagnostic.raw, bad);
        }
        other => panic!("expected the broken call's diagnostic, got {other:?}"),
    }
    assert!(
        matches!(&events[n - 1], DetectEvent::Text { text } if text == bad),
        "{events:?}"
    );
    for step in [1, 3, 7, 64] {
        agree(&input, step);
    }
}
