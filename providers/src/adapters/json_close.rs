//! Tells, byte by byte, when streamed argument text has closed its top-level JSON object.

/// Watches argument fragments go by and says when the top-level object is closed,
/// without keeping or re-reading the text: the depth and string/escape state are
/// all it needs. Used to finish an OpenAI-style call as soon as the next one starts,
/// instead of waiting for `finish_reason`.
#[derive(Debug, Default, Clone)]
pub(crate) struct JsonCloseTracker {
    depth: u32,
    in_string: bool,
    escape: bool,
    opened: bool,
    closed: bool,
    invalid: bool,
}

impl JsonCloseTracker {
    pub(crate) fn push(&mut self, fragment: &str) {
        for b in fragment.bytes() {
            if self.invalid {
                return;
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                continue;
            }
            if self.closed || (!self.opened && b != b'{') {
                // Something after the value, or a value that is not an object.
                self.invalid = true;
                self.closed = false;
                return;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.opened = true;
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.closed = true;
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the text so far is one closed object (possibly followed by whitespace).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed && !self.invalid
    }
}

#[cfg(test)]
mod tests {
    use super::JsonCloseTracker;

    fn check(pieces: &[&str], closed: bool) {
        let mut t = JsonCloseTracker::default();
        for p in pieces {
            t.push(p);
        }
        assert_eq!(t.is_closed(), closed, "{pieces:?}");
    }

    #[test]
    fn closes_only_at_the_end_of_the_top_level_object() {
        check(&["{\"a\":", "1}"], true);
        check(&["{\"a\":\"}\"", ""], false);
        check(&["{\"a\":\"\\\"}\"}"], true);
        check(&["{\"a\":[{", "}]", "}  "], true);
        check(&["{\"a\":\"\\\\\"", "}"], true);
        check(&["{} {}"], false);
        check(&["[1]"], false);
        check(&["", " "], false);
    }
}
