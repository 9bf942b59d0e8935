//! Byte helpers of every parser: searches tuned for the detector's inputs (most
//! deltas are a few bytes long, where `memchr`'s vector set-up costs more than
//! a plain loop), literal prefixes of possibly incomplete input, short copies
//! and JSON escaping.

/// Below this many bytes a loop beats the vectorised search.
const SHORT: usize = 16;

/// The number of ASCII whitespace bytes at the start of `bytes`.
#[inline]
pub(crate) fn leading_ws(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_whitespace()).count()
}

/// The first position of `a` in `hay`.
#[inline]
pub(crate) fn find1(a: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&c| c == a)
    } else {
        memchr::memchr(a, hay)
    }
}

/// The first position of `a` or `b` in `hay`.
///
/// Inside JSON strings of file content an escape comes every few bytes, so the
/// first words are checked eight bytes at a time in registers before handing
/// a long rest to the vectorised search.
#[inline]
pub(crate) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        return hay.iter().position(|&c| c == a || c == b);
    }
    let (wa, wb) = (ONES * u64::from(a), ONES * u64::from(b));
    let mut i = 0;
    while i + 8 <= hay.len().min(HEAD) {
        let w = word(&hay[i..i + 8]);
        let hits = zero_bytes(w ^ wa) | zero_bytes(w ^ wb);
        if hits != 0 {
            return Some(i + (hits.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr2(a, b, &hay[i..]).map(|p| p + i)
}

/// The first position of `a`, `b` or `c` in `hay`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&x| x == a || x == b || x == c)
    } else {
        memchr::memchr3(a, b, c, hay)
    }
}

/// The first byte at or after `from` that a JSON string must escape (`"`,
/// `\\` or a control character), eight bytes at a time: file contents are
/// long runs of plain bytes.
pub(crate) fn find_json_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let rest = bytes.get(from..)?;
    let mut chunks = rest.chunks_exact(8);
    let mut at = from;
    for chunk in chunks.by_ref() {
        let w = word(chunk);
        // Bytes below 0x20 flag like zero bytes (same borrow argument).
        let hits = zero_bytes(w ^ (ONES * u64::from(b'"')))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if hits != 0 {
            return Some(at + (hits.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|p| at + p)
}

/// Where a JSON string's body ends, scanning from `i` with `escaped` telling
/// whether the byte at `i` is escaped by a backslash before it. Returns
/// `Ok(offset after the closing quote)`, or `Err(escaped)` when the input ends
/// inside the string, with the state for the next input.
///
/// Eight bytes at a time: the word's backslashes and quotes become bit masks,
/// a table gives which bytes are escaped (an odd run of backslashes before
/// them, carried across words), and the first unescaped quote ends the string.
/// No step waits on the previous escape's position, which is what made
/// escape-dense file content slow with a search per escape.
pub(crate) fn skip_json_string(
    bytes: &[u8],
    mut i: usize,
    mut escaped: bool,
) -> Result<usize, bool> {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = word(chunk);
        let backslashes = byte_mask(exact_zero_bytes(w ^ (ONES * u64::from(b'\\'))));
        let quotes = byte_mask(exact_zero_bytes(w ^ (ONES * u64::from(b'"'))));
        let (esc, carry) = ESCAPES[usize::from(backslashes) | (usize::from(escaped) << 8)];
        let ends = quotes & !esc;
        if ends != 0 {
            return Ok(i + ends.trailing_zeros() as usize + 1);
        }
        escaped = carry;
        i += 8;
    }
    skip_json_string_bytewise(bytes, i, escaped)
}

/// [`skip_json_string`] by its rule, one byte at a time: the tail shorter than
/// a word (and the reference its tests check the word loop against).
fn skip_json_string_bytewise(bytes: &[u8], from: usize, mut escaped: bool) -> Result<usize, bool> {
    for (k, &b) in bytes.get(from..).unwrap_or_default().iter().enumerate() {
        if escaped {
            escaped = false;
        } else if b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            return Ok(from + k + 1);
        }
    }
    Err(escaped)
}

/// The high bit of exactly the zero bytes of `x` (no borrow false positives).
#[inline]
fn exact_zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// Bit `k` set for each byte `k` whose high bit is set in `high_bits`.
#[inline]
fn byte_mask(high_bits: u64) -> u8 {
    // Byte k's bit (at 8k after the shift) lands on bit 56 + k of the product;
    // no other partial product reaches the top byte or carries into it.
    ((high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// For a word's backslash mask and whether its first byte is escaped: which
/// bytes are escaped, and whether the next word's first byte is.
static ESCAPES: [(u8, bool); 512] = escape_table();

const fn escape_table() -> [(u8, bool); 512] {
    let mut table = [(0u8, false); 512];
    let mut index = 0;
    while index < 512 {
        let backslashes = (index & 0xff) as u8;
        let mut pending = index >= 256;
        let mut escaped = 0u8;
        let mut k = 0;
        while k < 8 {
            if pending {
                escaped |= 1 << k;
                pending = false;
            } else if backslashes & (1 << k) != 0 {
                pending = true;
            }
            k += 1;
        }
        table[index] = (escaped, pending);
        index += 1;
    }
    table
}

/// Appends `s` to `dst`. A piece of a streamed delta is often a few bytes
/// long, where a call to `memcpy` costs more than the copy: up to eight
/// bytes, each length is its own arm, so the copy is a fixed-size move the
/// compiler writes inline.
#[inline(always)]
pub(crate) fn push_short(dst: &mut String, s: &str) {
    match s.len() {
        0 => {}
        1 => dst.push_str(&s[..1]),
        2 => dst.push_str(&s[..2]),
        3 => dst.push_str(&s[..3]),
        4 => dst.push_str(&s[..4]),
        5 => dst.push_str(&s[..5]),
        6 => dst.push_str(&s[..6]),
        7 => dst.push_str(&s[..7]),
        8 => dst.push_str(&s[..8]),
        _ => dst.push_str(s),
    }
}

/// Whether `input` starts with `lit`: `Some(true)` yes, `None` input ends inside it.
#[inline]
pub(crate) fn starts(input: &[u8], lit: &[u8]) -> Option<bool> {
    let n = input.len().min(lit.len());
    if input[..n] != lit[..n] {
        return Some(false);
    }
    if n < lit.len() { None } else { Some(true) }
}

/// How JSON spells the control characters without a short escape.
const CONTROL_ESCAPES: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\u0008", "\\t", "\\n", "\\u000b", "\\u000c", "\\r", "\\u000e", "\\u000f", "\\u0010",
    "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018",
    "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// JSON-escapes `s` (without quotes) onto `out`. Always inlined: the XML
/// dialects' per-delta path (`EventBatch::push_args_escaped`), which lost it
/// when this moved out of `xml_call.rs`.
///
/// Eight bytes at a time: every byte of a word that needs an escape is found
/// from one exact mask, so escape-dense text (source code, one escape in a
/// few bytes) pays no new search per escape.
#[inline(always)]
pub(crate) fn escape_json_into(s: &str, out: &mut String) {
    // Short pieces (a delta of a few bytes, one decoded escape) stay inline
    // and small, so that their callers' own inlining is not disturbed; long
    // ones take the word-at-a-time loop, out of line.
    if s.len() < 8 {
        escape_tail(s, 0, 0, out);
    } else {
        escape_long(s, out);
    }
}

/// [`escape_json_into`] of a string of eight bytes or more.
#[inline(never)]
fn escape_long(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut hits = escape_bytes(word(chunk));
        while hits != 0 {
            let i = at + (hits.trailing_zeros() / 8) as usize;
            push_short(out, &s[start..i]);
            push_escape(out, bytes[i]);
            start = i + 1;
            hits &= hits - 1;
        }
        at += 8;
    }
    escape_tail(s, start, at, out);
}

/// Escapes `s` from `at` (fewer than eight bytes left), `s[start..at]`
/// being plain text not yet written.
#[inline(always)]
fn escape_tail(s: &str, mut start: usize, mut at: usize, out: &mut String) {
    let bytes = s.as_bytes();
    while let Some(p) = bytes.get(at..).and_then(|tail| {
        tail.iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
    }) {
        let i = at + p;
        push_short(out, &s[start..i]);
        push_escape(out, bytes[i]);
        start = i + 1;
        at = start;
    }
    push_short(out, &s[start..]);
}

/// The high bit of exactly the bytes of `w` that JSON must escape: `"`, `\\`
/// and the control characters.
#[inline]
fn escape_bytes(w: u64) -> u64 {
    // `w | HIGH` keeps every byte at or above 0x80, so taking 0x20 from each
    // never borrows across bytes; a byte's high bit then stays set exactly
    // when its low seven bits are 0x20 or more.
    let control = !((w | HIGH).wrapping_sub(ONES * 0x20)) & !w & HIGH;
    exact_zero_bytes(w ^ (ONES * u64::from(b'"')))
        | exact_zero_bytes(w ^ (ONES * u64::from(b'\\')))
        | control
}

/// The JSON escape of one byte that needs one.
#[inline]
fn push_escape(out: &mut String, b: u8) {
    match b {
        b'"' => out.push_str("\\\""),
        b'\\' => out.push_str("\\\\"),
        b => out.push_str(
            CONTROL_ESCAPES
                .get(usize::from(b))
                .copied()
                .unwrap_or_default(),
        ),
    }
}

/// How many leading bytes [`find2`] checks in registers.
const HEAD: usize = 32;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes as a little-endian word (`bytes` is eight long).
#[inline]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// The high bit of every zero byte of `x` is set. Borrows can also flag bytes
/// above a true zero, never below one, so the lowest flagged byte is exact.
#[inline]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// The whitespace that may stand between two tags at the start of `bytes`:
/// its length, or `None` when it runs past [`MAX_TAG_GAP`](super::config::MAX_TAG_GAP) bytes.
#[inline]
pub(crate) fn tag_gap(bytes: &[u8]) -> Option<usize> {
    let max = super::config::MAX_TAG_GAP;
    let ws = bytes
        .iter()
        .take(max + 1)
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    (ws <= max).then_some(ws)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Every length, each arm and the long one, appends exactly its input
    /// after what was there, multi-byte characters included.
    #[test]
    fn push_short_appends_every_length() {
        let source = "aé日😀bcdefghijklmnop";
        for start in 0..source.len() {
            for end in start..=source.len() {
                if !source.is_char_boundary(start) || !source.is_char_boundary(end) {
                    continue;
                }
                let piece = &source[start..end];
                let mut dst = String::from("x");
                push_short(&mut dst, piece);
                assert_eq!(dst, format!("x{piece}"), "{start}..{end}");
            }
        }
    }

    #[test]
    fn byte_masks_are_exact() {
        for pattern in 0u16..256 {
            let bytes: Vec<u8> = (0..8)
                .map(|k| {
                    if pattern & (1 << k) != 0 {
                        b'\\'
                    } else {
                        b'\\' + 1 + k as u8
                    }
                })
                .collect();
            let w = word(&bytes);
            let mask = byte_mask(exact_zero_bytes(w ^ (ONES * u64::from(b'\\'))));
            assert_eq!(u16::from(mask), pattern);
        }
    }

    #[test]
    fn string_ends_at_the_first_unescaped_quote() {
        // (input, start escaped, expected)
        let cases: &[(&str, bool, Result<usize, bool>)] = &[
            ("abc\"rest", false, Ok(4)),
            ("\\\"x\"", false, Ok(4)),
            ("\\\\\"", false, Ok(3)),
            ("\"", true, Err(false)),
            ("\"\"", true, Ok(2)),
            ("0123456789abcdef\\", false, Err(true)),
            ("01234567\\\"89abcdef\"", false, Ok(19)),
            ("0123456\\\"x\"", false, Ok(11)),
            ("0123456\\\\\"x", false, Ok(10)),
        ];
        for &(input, esc, want) in cases {
            assert_eq!(
                skip_json_string(input.as_bytes(), 0, esc),
                want,
                "{input:?} {esc}"
            );
            // The byte rule the proptest checks the word loop against.
            assert_eq!(
                skip_json_string_bytewise(input.as_bytes(), 0, esc),
                want,
                "{input:?} {esc}"
            );
        }
    }

    proptest! {
        #[test]
        fn string_skip_agrees_with_the_byte_rule(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\\'), Just(b'"'), Just(b'a')], 0..40),
            from in 0usize..8,
            escaped in any::<bool>(),
        ) {
            let from = from.min(bytes.len());
            prop_assert_eq!(skip_json_string(&bytes, from, escaped), skip_json_string_bytewise(&bytes, from, escaped));
        }
    }

    #[test]
    fn short_and_long_inputs_agree_with_a_plain_search() {
        let long = "abc\"def\\ghi<jkl".repeat(3);
        let far = format!("{}\\{}", "a".repeat(40), "\"".repeat(3));
        let mut hays = vec![
            "",
            "x",
            "ab\"",
            "\\",
            "<<",
            &long[..15],
            &long[..16],
            &long,
            &far,
        ];
        let shifted: Vec<String> = (0..40).map(|k| format!("{}\"", "z".repeat(k))).collect();
        hays.extend(shifted.iter().map(String::as_str));
        for hay in hays {
            let h = hay.as_bytes();
            let naive = |set: &[u8]| h.iter().position(|c| set.contains(c));
            assert_eq!(find1(b'<', h), naive(b"<"), "{hay:?}");
            assert_eq!(find2(b'"', b'\\', h), naive(b"\"\\"), "{hay:?}");
            assert_eq!(find3(b'<', b'\\', b'z', h), naive(b"<\\z"), "{hay:?}");
        }
    }

    fn escaped(s: &str) -> String {
        let mut out = String::new();
        escape_json_into(s, &mut out);
        out
    }

    #[test]
    fn escapes_quotes_backslashes_and_controls_at_every_position() {
        assert_eq!(escaped(""), "");
        assert_eq!(escaped("plain text, café 日本"), "plain text, café 日本");
        assert_eq!(escaped("a\"b\\c\nd\re\tf"), "a\\\"b\\\\c\\nd\\re\\tf");
        assert_eq!(escaped("\u{1}\u{1f}\u{7f}"), "\\u0001\\u001f\u{7f}");
        // Each special byte at each offset of an eight-byte word and its tail.
        for special in ["\"", "\\", "\n", "\u{0}"] {
            for at in 0..19 {
                let s = format!("{}{special}{}", "x".repeat(at), "y".repeat(19 - at));
                let want = format!(
                    "{}{}{}",
                    "x".repeat(at),
                    match special {
                        "\"" => "\\\"",
                        "\\" => "\\\\",
                        "\n" => "\\n",
                        _ => "\\u0000",
                    },
                    "y".repeat(19 - at)
                );
                assert_eq!(escaped(&s), want, "{s:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn escaped_text_reads_back_as_the_same_string(s in "(?s).{0,80}") {
            let json = format!("\"{}\"", escaped(&s));
            let back: String = serde_json::from_str(&json).expect("escaped text is a json string");
            prop_assert_eq!(back, s);
        }

        /// Escape-dense text, several escapes to a word, with the bytes
        /// around the control-character boundary (0x1f, 0x20, 0x7f, 0x80+).
        #[test]
        fn dense_escapes_read_back_as_the_same_string(
            chars in proptest::collection::vec(
                proptest::sample::select(vec!['"', '\\', '\n', '\u{0}', '\u{1f}', ' ', '!', '\u{7f}', '\u{80}', 'é', 'a', '日']),
                0..40,
            )
        ) {
            let s: String = chars.into_iter().collect();
            let json = format!("\"{}\"", escaped(&s));
            let back: String = serde_json::from_str(&json).expect("escaped text is a json string");
            prop_assert_eq!(back, s);
        }
    }
}
