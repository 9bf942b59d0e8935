//! Unit tests of the framing layers: every split of each input gives the same frames.

#![allow(clippy::unwrap_used)] // tests may unwrap

use super::eventstream::{EventStreamDecoder, encode_frame};
use super::lines::{LineEvent, LineSplitter};
use super::sse::{Dropped, SseDecoder, SseItem};

/// Feeds `input` cut at every possible single point and in single bytes; each way
/// must give `expect` lines.
fn check_lines(input: &str, expect: &[&str]) {
    let bytes = input.as_bytes();
    let mut splits: Vec<Vec<&[u8]>> = (0..=bytes.len())
        .map(|i| vec![&bytes[..i], &bytes[i..]])
        .collect();
    splits.push(bytes.chunks(1).collect());
    for pieces in splits {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::new(1024);
        let mut take = |ev: LineEvent<'_>| match ev {
            LineEvent::Line(l) => lines.push(String::from_utf8(l.to_vec()).unwrap()),
            LineEvent::TooLong { .. } => lines.push("<too long>".into()),
        };
        for p in pieces {
            splitter.push(p, &mut take);
        }
        splitter.finish(&mut take);
        assert_eq!(lines, expect, "input {input:?}");
    }
}

#[test]
fn line_endings() {
    check_lines("a\nb\r\nc\rd", &["a", "b", "c", "d"]);
    check_lines("a\r\n\r\nb\n", &["a", "", "b"]);
    check_lines("\r\r\n\n", &["", "", ""]);
    check_lines("é🚀\r\n", &["é🚀"]);
}

#[test]
fn line_limit() {
    let mut out = Vec::new();
    let mut s = LineSplitter::new(4);
    let mut take = |ev: LineEvent<'_>| {
        out.push(match ev {
            LineEvent::Line(l) => String::from_utf8_lossy(l).into_owned(),
            LineEvent::TooLong { limit } => format!("<{limit}>"),
        })
    };
    for p in ["ab", "cdef", "gh\nok\n", "123456789\n", "x"] {
        s.push(p.as_bytes(), &mut take);
    }
    s.finish(&mut take);
    assert_eq!(out, ["<4>", "ok", "<4>", "x"]);
}

fn check_sse(input: &str, expect: &[(&str, &str)]) {
    check_sse_bytes(input.as_bytes(), 1024, expect);
}

/// Feeds `input` cut at every point to a decoder whose line limit is
/// `limit`; each way must give `expect`: `(event, data)` for an event,
/// `("<too long>", limit)` and `("<not utf-8>", "")` for a dropped one.
fn check_sse_bytes(bytes: &[u8], limit: usize, expect: &[(&str, &str)]) {
    for cut in 0..=bytes.len() {
        let mut got: Vec<(String, String)> = Vec::new();
        let mut d = SseDecoder::new(limit);
        let mut take = |item: SseItem<'_>| {
            got.push(match item {
                SseItem::Event(ev) => (
                    ev.event.to_owned(),
                    String::from_utf8(ev.data.to_vec()).unwrap(),
                ),
                SseItem::Dropped(Dropped::TooLong { limit }) => {
                    ("<too long>".to_owned(), limit.to_string())
                }
                SseItem::Dropped(Dropped::InvalidUtf8) => ("<not utf-8>".to_owned(), String::new()),
            });
        };
        d.push(&bytes[..cut], &mut take);
        d.push(&bytes[cut..], &mut take);
        d.finish(&mut take);
        let want: Vec<(String, String)> = expect
            .iter()
            .map(|(e, d)| (e.to_string(), d.to_string()))
            .collect();
        assert_eq!(
            got,
            want,
            "input {:?} cut at {cut}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn sse_fields() {
    check_sse("data: a\n\n", &[("", "a")]);
    check_sse("event: x\ndata: 1\ndata:2\n\n", &[("x", "1\n2")]);
    check_sse(
        ": comment\nid: 7\nretry: 10\nfoo: bar\ndata:  two spaces\n\n",
        &[("", " two spaces")],
    );
    check_sse("event: only\n\ndata: b\r\n\r\n", &[("", "b")]);
    check_sse(
        "data: last without blank line",
        &[("", "last without blank line")],
    );
    check_sse("data\n\n", &[("", "")]);
}

#[test]
fn an_event_with_a_line_over_the_limit_is_dropped_whole() {
    // The first data line was read before the long one: the event is not
    // handed over without the long line; the next event is.
    check_sse_bytes(
        b"data: {\"a\":\ndata: 0123456789abc\ndata: 1}\n\ndata: ok\n\n",
        16,
        &[("<too long>", "16"), ("", "ok")],
    );
    // Only one report for an event, and an event's last line may be cut by
    // the end of the stream.
    check_sse_bytes(
        b"data: 0123456789abc\ndata: 0123456789abc\n\ndata: 0123456789abc",
        16,
        &[("<too long>", "16"), ("<too long>", "16")],
    );
}

#[test]
fn an_event_whose_data_lines_add_up_past_the_limit_is_dropped() {
    // Each line fits in 10 bytes, their data does not: "12345\n67890" is 11.
    check_sse_bytes(
        b"data:12345\ndata:67890\n\ndata:12\ndata:34\n\n",
        10,
        &[("<too long>", "10"), ("", "12\n34")],
    );
}

#[test]
fn an_event_named_in_invalid_utf8_is_dropped() {
    check_sse_bytes(
        b"event: a\xffb\ndata: x\n\nevent: \xc3\xa9\ndata: y\n\n",
        1024,
        &[("<not utf-8>", ""), ("\u{e9}", "y")],
    );
}

#[test]
fn eventstream_skips_other_header_types_and_survives_every_split() {
    // Hand-build a frame with a bool, an int32, a timestamp and a uuid header before
    // the string headers.
    let mut h = Vec::new();
    for (name, ty, value) in [
        ("b", 0u8, vec![]),
        ("i", 4, vec![0, 0, 0, 9]),
        ("t", 8, vec![0; 8]),
        ("u", 9, vec![7; 16]),
        ("y", 6, vec![0, 2, 1, 2]),
    ] {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(ty);
        h.extend_from_slice(&value);
    }
    let plain = encode_frame(&[(":event-type", "e"), (":message-type", "event")], b"{}");
    // Re-encode with the extra headers in front.
    let strings = &plain[12..plain.len() - 4 - 2];
    let mut headers = h.clone();
    headers.extend_from_slice(strings);
    let total = 12 + headers.len() + 2 + 4;
    let mut frame = Vec::new();
    frame.extend_from_slice(&(total as u32).to_be_bytes());
    frame.extend_from_slice(&(headers.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&crc.to_be_bytes());
    frame.extend_from_slice(&headers);
    frame.extend_from_slice(b"{}");
    let crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&crc.to_be_bytes());

    let stream = [frame.clone(), frame].concat();
    for cut in 0..=stream.len() {
        let mut d = EventStreamDecoder::new(1 << 20);
        let mut seen = Vec::new();
        for part in [&stream[..cut], &stream[cut..]] {
            d.push(part, |f| {
                let f = f.unwrap();
                seen.push((f.headers.event_type.map(str::to_owned), f.payload.to_vec()));
            })
            .unwrap();
        }
        assert!(d.finish().is_none());
        assert_eq!(
            seen,
            vec![(Some("e".to_owned()), b"{}".to_vec()); 2],
            "cut {cut}"
        );
    }
}
