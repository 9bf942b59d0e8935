//! Unit tests of the framing layers: every split of each input gives the same frames.

#![allow(clippy::unwrap_used)] // tests may unwrap

use super::eventstream::{EventStreamDecoder, encode_frame};
use super::lines::{LineEvent, LineSplitter};
use super::sse::{SseDecoder, SseItem};

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
    let bytes = input.as_bytes();
    for cut in 0..=bytes.len() {
        let mut got: Vec<(String, String)> = Vec::new();
        let mut d = SseDecoder::new(1024);
        let mut take = |item: SseItem<'_>| {
            if let SseItem::Event(ev) = item {
                got.push((ev.event.to_owned(), ev.data.to_owned()));
            }
        };
        d.push(&bytes[..cut], &mut take);
        d.push(&bytes[cut..], &mut take);
        d.finish(&mut take);
        let want: Vec<(String, String)> = expect
            .iter()
            .map(|(e, d)| (e.to_string(), d.to_string()))
            .collect();
        assert_eq!(got, want, "input {input:?} cut at {cut}");
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
