//! Caller input quoted back in errors, diagnostics and logs, cut to a bounded size.
//!
//! A value a caller sent (a tool name, an argument that failed validation, a
//! method name, a line that did not parse) can be megabytes long. Quoting it
//! whole makes the answer as big as the attack, and an `isError` result goes
//! straight back into a model's context. Every quote of caller input goes
//! through [`echo`] or [`echo_display`]: at most [`ECHO_LIMIT`] bytes, cut at a
//! char boundary, followed by `… (15,728,640 bytes)` when cut.

use std::fmt::{self, Display, Write as _};

/// The most bytes of a caller's value an error quotes.
pub(crate) const ECHO_LIMIT: usize = 256;

/// A caller's text as an error quotes it (see [`echo`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Echo<'a>(&'a str);

/// Quotes `text` in an error: whole when it is at most [`ECHO_LIMIT`] bytes,
/// else its first bytes up to a char boundary, then `… (N bytes)` naming its
/// total size.
pub(crate) fn echo(text: &str) -> Echo<'_> {
    Echo(text)
}

impl Display for Echo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.len() <= ECHO_LIMIT {
            return f.write_str(self.0);
        }
        f.write_str(&self.0[..floor_char_boundary(self.0, ECHO_LIMIT)])?;
        write_cut_note(f, self.0.len())
    }
}

/// Formats `value` as [`echo`] would quote its text, without building the
/// whole text first: a validation error whose message holds a 15 MB argument
/// costs [`ECHO_LIMIT`] bytes of memory, and its size is still counted.
pub(crate) fn echo_display(value: &impl Display) -> String {
    let mut out = BoundedText::default();
    // `BoundedText` never fails; a `Display` impl that does leaves what it wrote.
    let _ = write!(out, "{value}");
    out.finish()
}

/// Writes a byte count with thousands separators: `15,728,640`.
pub(crate) fn write_byte_count(f: &mut impl fmt::Write, n: usize) -> fmt::Result {
    let digits = n.to_string();
    for (idx, digit) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx).is_multiple_of(3) {
            f.write_char(',')?;
        }
        f.write_char(digit)?;
    }
    Ok(())
}

fn write_cut_note(f: &mut impl fmt::Write, total: usize) -> fmt::Result {
    f.write_str("… (")?;
    write_byte_count(f, total)?;
    f.write_str(" bytes)")
}

/// The largest char boundary of `text` at or below `at`.
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A `fmt::Write` sink that keeps the first [`ECHO_LIMIT`] bytes and counts the rest.
#[derive(Default)]
struct BoundedText {
    kept: String,
    total: usize,
}

impl fmt::Write for BoundedText {
    fn write_str(&mut self, piece: &str) -> fmt::Result {
        self.total = self.total.saturating_add(piece.len());
        let room = ECHO_LIMIT.saturating_sub(self.kept.len());
        if room > 0 {
            self.kept
                .push_str(&piece[..floor_char_boundary(piece, room)]);
        }
        Ok(())
    }
}

impl BoundedText {
    fn finish(mut self) -> String {
        if self.total > self.kept.len() {
            // Writing to a `String` does not fail.
            let _ = write_cut_note(&mut self.kept, self.total);
        }
        self.kept
    }
}

#[cfg(test)]
mod tests;
