//! Raw capture: finding where a JSON object or array ends without tokenizing
//! it (`BracketScan`), for values the tokenizer passes through as raw text.

use super::ValueKind;

/// The raw-capture scanner for objects and arrays.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RawScan {
    pub(super) kind: Option<ValueKind>,
    pub(super) brackets: BracketScan,
}

/// Finds where a JSON object or array that starts at its first byte ends,
/// without tokenizing it: nesting depth, inside a string, after a backslash.
/// Fed in pieces; string contents are skipped with `memchr`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BracketScan {
    depth: usize,
    in_str: bool,
    escaped: bool,
    /// A `<` outside every string stops the scan (see [`scan`](Self::scan)).
    tag_ends: bool,
}

impl BracketScan {
    /// A scan that stops at a `<` outside every string: JSON has none there,
    /// so the value is broken, and the `<` may be the end token of the call
    /// it stands in (the special-token sections).
    pub(crate) fn stopping_at_tags() -> Self {
        Self {
            tag_ends: true,
            ..Self::default()
        }
    }

    /// Inside a string, not just after a backslash.
    #[inline]
    pub(crate) fn in_string_content(&self) -> bool {
        self.in_str && !self.escaped
    }

    /// Scans `bytes` from `i`; returns where it stopped and whether the
    /// outermost bracket closed there (just before the returned offset).
    /// Stopped before the end of `bytes` without a close: at a `<` outside
    /// every string, in a scan [`stopping_at_tags`](Self::stopping_at_tags).
    #[inline(always)]
    pub(crate) fn scan(&mut self, bytes: &[u8], mut i: usize) -> (usize, bool) {
        while i < bytes.len() {
            if self.in_str {
                match super::super::scan::skip_json_string(bytes, i, self.escaped) {
                    Ok(next) => {
                        self.in_str = false;
                        self.escaped = false;
                        i = next;
                    }
                    Err(escaped) => {
                        self.escaped = escaped;
                        return (bytes.len(), false);
                    }
                }
                continue;
            }
            let c = bytes[i];
            i += 1;
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return (i, true);
                    }
                }
                b'<' if self.tag_ends => return (i - 1, false),
                _ => {}
            }
        }
        (i, false)
    }
}
