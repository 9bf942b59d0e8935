//! The bearer-token comparison both listeners use.

/// Whether two byte strings are equal, in time that depends only on their
/// lengths (a bearer token compared with what a client sent).
pub(crate) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
