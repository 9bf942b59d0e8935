//! Byte searches tuned for the detector's inputs: most deltas are a few bytes
//! long, where `memchr`'s vector set-up costs more than a plain loop.

/// Below this many bytes a loop beats the vectorised search.
const SHORT: usize = 16;

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

/// The first position of `a`, `b` or `c` in `hay`.
#[inline]
pub(crate) fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&x| x == a || x == b || x == c)
    } else {
        memchr::memchr3(a, b, c, hay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
