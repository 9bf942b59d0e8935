//! Where a broken call of a Python call list ends (`[f(a=1), g(b=<bad>)]`,
//! Olmo 3's lines): the skip goes on reading the call's brackets and string
//! literals from where the call broke.
//!
//! The rule, byte by byte from the break (the brackets the converter had
//! open, the call's own `(` first, are open already):
//!
//! - `(`, `[` and `{` open a bracket. `)`, `]` and `}` close the innermost
//!   open bracket of their kind, and every bracket opened after it (Python
//!   refuses such a mismatch; the skip recovers from it).
//! - The closer that closes the call's `(` ends the element after itself.
//! - In a bracketed list, a `]` that closes no bracket of the element is the
//!   list's: the element ends before it (a call whose paren never balances
//!   ends there). Any other closer that closes nothing is skipped.
//! - `'` and `"` open a string as Python reads them (`'''`/`"""` triple
//!   quoted, `''` empty, a backslash escapes the next byte); brackets in a
//!   string do not count. A one-quote string also ends at the end of its
//!   line, so a stray quote swallows at most one line.
//! - The list's closing wrapper (`<|tool_call_end|>`, `</function_calls>`)
//!   ends the element before itself wherever it appears, strings included.
//!
//! At most the wrapper's length minus one byte is held (a wrapper cut short);
//! everything else is decided as it arrives, so where the deltas are cut never
//! matters.

use super::Skip;
use crate::detect::scan::starts;

/// A broken call being skipped (see the module doc).
#[derive(Debug, Clone)]
pub(crate) struct CallSkip {
    /// The closers of the open brackets, innermost last, the call's `)`
    /// first. It grows with the brackets the input opens, as the region
    /// that holds them does.
    open: Vec<u8>,
    /// How many of `open` are `)`, `]` and `}`.
    counts: [usize; 3],
    lex: Lex,
    /// Calls sit in `[…]`: a `]` at the call's level is the list's.
    bracketed: bool,
    /// The list's closing wrapper.
    close: Option<&'static str>,
}

/// Where the skip is in the Python text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lex {
    /// Outside strings.
    Code,
    /// `n` (1 or 2) quotes `q` read where a string begins.
    Quotes { q: u8, n: u8 },
    /// Inside a one-quote string.
    Short { q: u8, esc: bool },
    /// Inside a triple-quoted string, after `run` closing quotes.
    Long { q: u8, run: u8, esc: bool },
}

/// What one byte does to the element.
enum Byte {
    /// The element goes on.
    On,
    /// The element ends after this byte.
    After,
    /// The element ends before this byte.
    Before,
}

impl CallSkip {
    /// A skip from where a call broke, with the closers of the brackets then
    /// open (`)` for the call's own `(` first; an empty list is read as that).
    pub(crate) fn new(open: Vec<u8>, bracketed: bool, close: Option<&'static str>) -> Self {
        let mut skip = Self {
            open: Vec::with_capacity(open.len().max(1)),
            counts: [0; 3],
            lex: Lex::Code,
            bracketed,
            close,
        };
        if open.is_empty() {
            skip.push(b')');
        }
        for closer in open {
            skip.push(closer);
        }
        skip
    }

    fn push(&mut self, closer: u8) {
        if let Some(k) = kind(closer) {
            self.counts[k] += 1;
            self.open.push(closer);
        }
    }

    /// Looks for the element's end in `rest` (see the module doc).
    pub(crate) fn skip(&mut self, rest: &[u8], eof: bool) -> Skip {
        for (at, &b) in rest.iter().enumerate() {
            if b == b'<'
                && let Some(close) = self.close
            {
                match starts(&rest[at..], close.as_bytes()) {
                    Some(true) => return Skip::To(at),
                    None if !eof => return Skip::NeedMore(at),
                    _ => {}
                }
            }
            match self.byte(b) {
                Byte::On => {}
                Byte::After => return Skip::To(at + 1),
                Byte::Before => return Skip::To(at),
            }
        }
        Skip::NeedMore(rest.len())
    }

    fn byte(&mut self, b: u8) -> Byte {
        match self.lex {
            Lex::Code => self.code(b),
            Lex::Quotes { q, n } => {
                if b == q {
                    self.lex = if n == 2 {
                        Lex::Long {
                            q,
                            run: 0,
                            esc: false,
                        }
                    } else {
                        Lex::Quotes { q, n: 2 }
                    };
                    return Byte::On;
                }
                if n == 2 {
                    // `''`: an empty string; `b` is code.
                    self.lex = Lex::Code;
                    return self.code(b);
                }
                self.lex = Lex::Short { q, esc: false };
                self.short(q, false, b);
                Byte::On
            }
            Lex::Short { q, esc } => {
                self.short(q, esc, b);
                Byte::On
            }
            Lex::Long { q, run, esc } => {
                self.lex = if esc {
                    Lex::Long {
                        q,
                        run: 0,
                        esc: false,
                    }
                } else if b == b'\\' {
                    Lex::Long {
                        q,
                        run: 0,
                        esc: true,
                    }
                } else if b == q && run == 2 {
                    Lex::Code
                } else if b == q {
                    Lex::Long {
                        q,
                        run: run + 1,
                        esc: false,
                    }
                } else {
                    Lex::Long {
                        q,
                        run: 0,
                        esc: false,
                    }
                };
                Byte::On
            }
        }
    }

    fn short(&mut self, q: u8, esc: bool, b: u8) {
        self.lex = if esc {
            Lex::Short { q, esc: false }
        } else if b == b'\\' {
            Lex::Short { q, esc: true }
        } else if b == q || b == b'\n' {
            Lex::Code
        } else {
            Lex::Short { q, esc: false }
        };
    }

    fn code(&mut self, b: u8) -> Byte {
        match b {
            b'\'' | b'"' => self.lex = Lex::Quotes { q: b, n: 1 },
            b'(' => self.push(b')'),
            b'[' => self.push(b']'),
            b'{' => self.push(b'}'),
            b')' | b']' | b'}' => return self.closer(b),
            _ => {}
        }
        Byte::On
    }

    fn closer(&mut self, b: u8) -> Byte {
        let Some(k) = kind(b) else {
            return Byte::On;
        };
        if self.counts[k] == 0 {
            return if b == b']' && self.bracketed {
                Byte::Before
            } else {
                Byte::On
            };
        }
        // Close down to the innermost bracket of this kind (each bracket is
        // pushed and popped once: linear over the skip).
        while let Some(top) = self.open.pop() {
            if let Some(t) = kind(top) {
                self.counts[t] -= 1;
            }
            if top == b {
                break;
            }
        }
        if self.open.is_empty() {
            Byte::After
        } else {
            Byte::On
        }
    }
}

/// The index of a closer in `CallSkip::counts`.
fn kind(closer: u8) -> Option<usize> {
    match closer {
        b')' => Some(0),
        b']' => Some(1),
        b'}' => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skips `input` in the given pieces from `depth` open brackets; the
    /// element's length, or `None` if it does not end.
    fn end(open: &str, bracketed: bool, pieces: &[&str]) -> Option<usize> {
        let mut skip = CallSkip::new(open.as_bytes().to_vec(), bracketed, Some("</end>"));
        let mut pending = String::new();
        let mut done = 0;
        for (k, piece) in pieces.iter().enumerate() {
            pending.push_str(piece);
            let eof = k + 1 == pieces.len();
            match skip.skip(pending.as_bytes(), eof) {
                Skip::To(n) => return Some(done + n),
                Skip::NeedMore(n) => {
                    done += n;
                    pending.drain(..n);
                }
            }
        }
        None
    }

    /// The element's end, the same whole and under every two-piece and
    /// one-byte split.
    fn check(open: &str, bracketed: bool, input: &str) -> Option<usize> {
        let whole = end(open, bracketed, &[input]);
        for cut in 0..=input.len() {
            let split = end(open, bracketed, &[&input[..cut], &input[cut..]]);
            assert_eq!(split, whole, "cut at {cut}: {input}");
        }
        let bytes: Vec<String> = input.chars().map(String::from).collect();
        let bytes: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(end(open, bracketed, &bytes), whole, "by char: {input}");
        whole
    }

    #[test]
    fn a_call_ends_after_its_paren_or_before_the_lists_bracket_or_the_wrapper() {
        // From `b` in `bad(x=b'z')`: the string, then the call's `)`.
        assert_eq!(check(")", true, "'z'), ls()]"), Some(4));
        // Brackets and quotes inside strings do not count.
        assert_eq!(
            check(")", true, "'a)]' \"(\" ''')\n''' ''), ls()"),
            Some(22)
        );
        assert_eq!(check(")", true, r"'\')' ), x"), Some(7));
        // Inner brackets are matched by kind; a mismatched closer closes
        // down to its own kind.
        assert_eq!(check(")]", true, "), ls()]"), Some(1));
        assert_eq!(check(")", true, "(1]), x"), Some(2));
        assert_eq!(check(")", true, "[1, {2), x"), Some(7));
        assert_eq!(check(")}", false, "]), x"), Some(2));
        // An empty list of open brackets is the call's own `(`.
        assert_eq!(check("", true, "x)"), Some(2));
        // A paren that never balances ends before the list's `]`.
        assert_eq!(check(")", true, "1]"), Some(1));
        assert_eq!(check(")", false, "1]} x)\n"), Some(6));
        // The wrapper ends it anywhere, strings included.
        assert_eq!(check(")", true, "'a </end>"), Some(3));
        assert_eq!(check(")", true, "'a </en"), None);
        // A one-quote string ends at its line's end.
        assert_eq!(check(")", false, "'a\n)"), Some(4));
        assert_eq!(check(")", false, "'''a\n)'''x)"), Some(11));
        assert_eq!(check(")", true, "'x, y"), None);
    }
}
