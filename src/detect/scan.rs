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
#[inline]
pub(crate) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    if hay.len() < SHORT {
        hay.iter().position(|&c| c == a || c == b)
    } else {
        memchr::memchr2(a, b, hay)
    }
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
        for hay in ["", "x", "ab\"", "\\", "<<", &long[..15], &long[..16], &long] {
            let h = hay.as_bytes();
            let naive = |set: &[u8]| h.iter().position(|c| set.contains(c));
            assert_eq!(find1(b'<', h), naive(b"<"), "{hay:?}");
            assert_eq!(find2(b'"', b'\\', h), naive(b"\"\\"), "{hay:?}");
            assert_eq!(find3(b'<', b'\\', b'z', h), naive(b"<\\z"), "{hay:?}");
        }
    }
}
