//! Unit tests of the JSON tokenizer and the string decoder.

use proptest::prelude::*;

use super::{Directive, JsonEvent, JsonTokenizer, StrDecoder, TokStatus};

/// How one character is written inside a JSON string.
#[derive(Debug, Clone, Copy)]
enum Spelling {
    /// Its short escape where it has one (`/` too, as `\/`), else `\u`
    /// below U+0020, else itself.
    Plain,
    /// `\uXXXX`, as a surrogate pair above U+FFFF.
    Unicode,
}

/// `s` as a JSON string body with each character spelled its way, then
/// the closing quote.
fn encode(s: &str, spellings: &[Spelling]) -> String {
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        match spellings.get(k % spellings.len().max(1)).copied() {
            Some(Spelling::Unicode) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            _ => match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '/' => out.push_str("\\/"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            },
        }
    }
    out.push('"');
    out
}

/// `input` cut at `cuts` (moved down to character boundaries, empty
/// pieces left out): each piece with its offset in `input`.
fn pieces<'a>(input: &'a str, cuts: &[usize]) -> Vec<(usize, &'a str)> {
    let mut cuts: Vec<usize> = cuts
        .iter()
        .map(|&c| {
            (0..=c.min(input.len()))
                .rev()
                .find(|&c| input.is_char_boundary(c))
                .unwrap_or(0)
        })
        .collect();
    cuts.push(input.len());
    cuts.sort_unstable();
    let mut out = Vec::new();
    let mut from = 0;
    for cut in cuts {
        if cut > from {
            out.push((from, &input[from..cut]));
            from = cut;
        }
    }
    out
}

/// Feeds `input` cut at `cuts` (moved to character boundaries); returns
/// what was decoded and where the string ended, counted in `input`.
fn decode_split(input: &str, cuts: &[usize]) -> (String, Result<Option<usize>, usize>) {
    let mut decoder = StrDecoder::default();
    let mut out = String::new();
    for (from, piece) in pieces(input, cuts) {
        match decoder.decode(piece, &mut out) {
            Ok(None) => {}
            Ok(Some(end)) => return (out, Ok(Some(from + end))),
            Err(at) => return (out, Err(from + at)),
        }
    }
    (out, Ok(None))
}

fn spelling() -> impl Strategy<Value = Spelling> {
    prop_oneof![3 => Just(Spelling::Plain), 1 => Just(Spelling::Unicode)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any string, spelled any mix of ways and cut anywhere, decodes to
    /// itself, and the decoder stops just after the closing quote.
    #[test]
    fn decodes_every_spelling_under_every_split(
        s in "[a-z \"\\\\/\n\r\t\u{8}\u{c}\u{1}é日😀]{0,40}",
        spellings in proptest::collection::vec(spelling(), 1..5),
        cuts in proptest::collection::vec(0usize..400, 0..10),
    ) {
        let body = encode(&s, &spellings);
        let input = format!("{body}, \"next\"");
        let (out, end) = decode_split(&input, &cuts);
        prop_assert_eq!(end, Ok(Some(body.len())));
        prop_assert_eq!(out, s);
    }

    /// A raw-captured string inside an envelope, cut anywhere: its
    /// chunks make the string, `RawEnd` reports it whole and where it
    /// ended, and the tokens after it and the end of the value are
    /// found where they are (the string's pieces skip the loop).
    #[test]
    fn a_raw_string_under_every_split_streams_and_ends_whole(
        s in "[a-z \"\\\\/\n\t\u{1}é😀]{0,30}",
        spellings in proptest::collection::vec(spelling(), 1..4),
        cuts in proptest::collection::vec(0usize..200, 0..8),
    ) {
        let body = encode(&s, &spellings);
        let input = format!("{{\"a\":\"{body},\"b\":[1]}} tail");
        let quote = "{\"a\":".len();
        let end = quote + 1 + body.len();
        let done = input.len() - " tail".len();
        let (events, status) = tokenize_split(&input, &cuts);
        let chunks: String = events
            .iter()
            .filter_map(|e| e.strip_prefix("chunk "))
            .collect();
        prop_assert_eq!(chunks, s.clone());
        let rest: Vec<String> = events
            .into_iter()
            .filter(|e| !e.starts_with("chunk "))
            .collect();
        // `,"b":[1]}` after the string: `[` five bytes past its end.
        let want = vec![
            "object_start 0".to_owned(),
            "key a".to_owned(),
            format!("raw_start String {quote}"),
            format!("raw_end {end} {s:?}"),
            "key b".to_owned(),
            format!("array_start {}", end + 5),
            "scalar 1".to_owned(),
            format!("array_end {}", end + 7),
            format!("object_end {}", done - 1),
        ];
        prop_assert_eq!(rest, want);
        prop_assert_eq!(status, Ok(done));
    }
}

/// Feeds `input` cut at `cuts` (moved to character boundaries) with key
/// `a` raw-captured; returns the events, one line each, and where the
/// value ended in `input` (or the error status).
fn tokenize_split(input: &str, cuts: &[usize]) -> (Vec<String>, Result<usize, String>) {
    let mut tok = JsonTokenizer::new();
    let mut events = Vec::new();
    for (from, piece) in pieces(input, cuts) {
        let status = tok.feed(piece, &mut |ev| {
            let directive = match ev {
                JsonEvent::Key("a") => Directive::Raw,
                _ => Directive::Continue,
            };
            events.push(match ev {
                JsonEvent::ObjectStart(at) => format!("object_start {at}"),
                JsonEvent::ObjectEnd(at) => format!("object_end {at}"),
                JsonEvent::ArrayStart(at) => format!("array_start {at}"),
                JsonEvent::ArrayEnd(at) => format!("array_end {at}"),
                JsonEvent::Key(k) => format!("key {k}"),
                JsonEvent::Str(v) => format!("str {v}"),
                JsonEvent::Scalar(v) => format!("scalar {v}"),
                JsonEvent::RawStart(kind, at) => format!("raw_start {kind:?} {at}"),
                JsonEvent::RawChunk(c) => format!("chunk {c}"),
                JsonEvent::RawEnd { at, string } => match string {
                    Some(s) => format!("raw_end {at} {s:?}"),
                    None => format!("raw_end {at}"),
                },
            });
            directive
        });
        match status {
            TokStatus::NeedMore => {}
            TokStatus::Done(n) => return (events, Ok(from + n)),
            other => return (events, Err(format!("{other:?} after {from}"))),
        }
    }
    (events, Err("unfinished".to_owned()))
}

#[test]
fn nesting_past_the_inline_stack_closes_each_container_in_order() {
    // 70 levels, arrays and objects alternating by level, so that the
    // levels past the 64 kept in bits are told apart by the vector.
    let depth = 70;
    let mut input = String::new();
    for level in 0..depth {
        input.push_str(if level % 2 == 0 { "[" } else { "{\"k\":" });
    }
    input.push('1');
    for level in (0..depth).rev() {
        input.push(if level % 2 == 0 { ']' } else { '}' });
    }
    let done = input.len();
    input.push_str(" tail");
    let (events, status) = tokenize_split(&input, &[]);
    assert_eq!(status, Ok(done));
    let closes: Vec<&str> = events
        .iter()
        .filter_map(|e| e.split(' ').next())
        .filter(|e| e.ends_with("_end"))
        .collect();
    let want: Vec<&str> = (0..depth)
        .rev()
        .map(|level| {
            if level % 2 == 0 {
                "array_end"
            } else {
                "object_end"
            }
        })
        .collect();
    assert_eq!(closes, want);
    // A close of the wrong kind at level 66 is invalid, not accepted.
    let mut wrong = input[..done].to_owned();
    let at = done - depth + (depth - 1 - 66);
    let swapped = if wrong.as_bytes()[at] == b']' {
        "}"
    } else {
        "]"
    };
    wrong.replace_range(at..at + 1, swapped);
    let (_, status) = tokenize_split(&wrong, &[]);
    assert!(status.is_err(), "{status:?}");
}

#[test]
fn clusters_of_escapes_decode_whole_and_cut_inside() {
    // A line of file content inside arguments inside a JSON string: the
    // shape the open_ai_function dialect streams.
    let input = r#"say \\\"hi\\\" C:\\\\dir\\n\/x\b\f\r\t" tail"#;
    let want = "say \\\"hi\\\" C:\\\\dir\\n/x\u{8}\u{c}\r\t";
    for cut in 0..=input.len() {
        let (out, end) = decode_split(input, &[cut]);
        assert_eq!(end, Ok(Some(input.len() - " tail".len())), "cut at {cut}");
        assert_eq!(out, want, "cut at {cut}");
    }
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    for (input, want) in [
        (r#"\ud83dx""#, "\u{fffd}x"),
        (r#"\ud83d\n""#, "\u{fffd}\n"),
        (r#"\ud83d""#, "\u{fffd}"),
        (r#"\ud83d\ud83d\ude00""#, "\u{fffd}😀"),
        (r#"\ude00a""#, "\u{fffd}a"),
        (r#"\ud83d\u0041""#, "\u{fffd}A"),
    ] {
        for cut in 0..=input.len() {
            let (out, end) = decode_split(input, &[cut]);
            assert_eq!(end, Ok(Some(input.len())), "{input} cut at {cut}");
            assert_eq!(out, want, "{input} cut at {cut}");
        }
    }
}

#[test]
fn a_bad_escape_is_reported_where_it_is() {
    for (input, at) in [(r#"ab\qcd""#, 3), (r#"\\\x""#, 3), (r#"\u00g0""#, 4)] {
        for cut in 0..=input.len() {
            assert_eq!(
                decode_split(input, &[cut]).1,
                Err(at),
                "{input} cut at {cut}"
            );
        }
    }
}

/// `plain_raw` after each piece of a raw-captured object fed in pieces,
/// and what the loop that a piece it allows skips would have reported:
/// exactly one `RawChunk` of the whole piece.
#[test]
fn plain_raw_holds_only_inside_a_string_of_a_raw_object() {
    let pieces = [
        "{\"a\":\"x", // inside the string "x…
        "yz",         // plain, inside
        "w\\",        // holds a backslash, and ends on it
        "q",          // the escaped byte
        "rs",         // plain, inside
        "\"",         // the string closes
        ",\"b\":1",   // outside any string
        "}",
    ];
    // Whether the piece after each one may skip the tokenizer: inside a
    // string, no escape pending, and no quote or backslash in that piece.
    let allowed = [true, false, false, true, false, false, false, false];
    let mut tok = JsonTokenizer::raw_value();
    for (i, piece) in pieces.iter().enumerate() {
        let next = pieces.get(i + 1).copied().unwrap_or("x");
        tok.feed(piece, &mut |_| Directive::Continue);
        assert_eq!(
            tok.plain_raw(next),
            allowed[i],
            "after {piece:?}, before {next:?}"
        );
        if allowed[i] {
            let mut probe = JsonTokenizer::raw_value();
            for p in &pieces[..=i] {
                probe.feed(p, &mut |_| Directive::Continue);
            }
            let mut seen = Vec::new();
            probe.run(next, &mut |ev| {
                seen.push(format!("{ev:?}"));
                Directive::Continue
            });
            assert_eq!(seen, [format!("RawChunk({next:?})")]);
        }
    }
    // Nothing plain outside a raw capture, nor in a raw-captured string.
    assert!(!JsonTokenizer::new().plain_raw("abc"));
    let mut string = JsonTokenizer::raw_value();
    string.feed("\"ab", &mut |_| Directive::Continue);
    assert!(!string.plain_raw("cd"));
}
