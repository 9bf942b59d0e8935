//! The bearer token both listeners may require: never empty or blank, and
//! compared in constant time with what a client sent.

use std::fmt;
use std::sync::Arc;

/// A token every request must carry. It is never empty or blank, and an
/// empty key a client sends never matches it.
#[derive(Clone)]
pub(crate) struct BearerToken(Arc<[u8]>);

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A secret: never printed.
        f.write_str("BearerToken(…)")
    }
}

impl BearerToken {
    /// `token`, unless it is empty or only whitespace: such a token would be
    /// matched by a client sending an empty key (an unset variable in
    /// `--token "$TOKEN"`), or by no request at all.
    pub(crate) fn new(token: &str) -> Option<Self> {
        (!is_blank(token)).then(|| Self(Arc::from(token.as_bytes())))
    }

    /// Whether an `Authorization` value carries the token: the scheme
    /// `Bearer` in any case (RFC 7235), one or more spaces, then the token.
    pub(crate) fn in_authorization(&self, value: &[u8]) -> bool {
        const SCHEME: &[u8] = b"bearer";
        let Some((scheme, rest)) = value.split_at_checked(SCHEME.len()) else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case(SCHEME) || rest.first() != Some(&b' ') {
            return false;
        }
        let start = rest.iter().position(|&b| b != b' ').unwrap_or(rest.len());
        self.is(&rest[start..])
    }

    /// Whether a bare key (the Anthropic SDKs' `x-api-key`) is the token.
    pub(crate) fn is(&self, key: &[u8]) -> bool {
        !key.is_empty() && constant_time_eq(key, &self.0)
    }
}

/// Whether `token` is empty or only whitespace (refused as a bearer token).
pub(crate) fn is_blank(token: &str) -> bool {
    token.trim().is_empty()
}

/// Whether two byte strings are equal, in time that depends only on their
/// lengths.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_token_is_no_token() {
        for token in ["", " ", "\t\n", "\u{a0}"] {
            assert!(BearerToken::new(token).is_none(), "{token:?}");
        }
        assert!(BearerToken::new(" t ").is_some());
    }

    #[test]
    fn the_scheme_is_read_in_any_case_and_an_empty_key_never_matches() {
        let token = BearerToken::new("tok").unwrap();
        for (value, expected) in [
            ("Bearer tok", true),
            ("bearer tok", true),
            ("BeArEr tok", true),
            ("Bearer   tok", true),
            ("Bearer", false),
            ("Bearer ", false),
            ("Bearer  ", false),
            ("", false),
            ("Bearertok", false),
            ("Bearer\ttok", false),
            ("Basic tok", false),
            ("tok", false),
            ("Bearer to", false),
            ("Bearer toke", false),
            ("Bearer TOK", false),
            ("Bearer tok ", false),
        ] {
            assert_eq!(
                token.in_authorization(value.as_bytes()),
                expected,
                "{value:?}"
            );
        }
        assert!(token.is(b"tok"));
        assert!(!token.is(b""));
        assert!(!token.is(b"Bearer tok"));
    }

    /// The guard in the check itself: even a token that got past `new`
    /// blank is never matched by an empty key.
    #[test]
    fn an_empty_key_does_not_match_even_an_empty_token() {
        let empty = BearerToken(Arc::from(&b""[..]));
        assert!(!empty.is(b""));
        assert!(!empty.in_authorization(b"Bearer "));
        assert!(!empty.in_authorization(b"Bearer"));
    }

    #[test]
    fn the_token_is_never_printed() {
        let token = BearerToken::new("s3cret").unwrap();
        assert!(!format!("{token:?}").contains("s3cret"));
    }
}
