//! What the GBNF and Lark writers spell alike: quoted string literals (`"`,
//! `\` and control chars escaped, everything else as it is) and the
//! suffixes of repetitions.

use std::fmt::Write as _;

/// How a control char without a short escape (`\n`, `\r`, `\t`) is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Control {
    /// `\uHHHH`, four uppercase hex digits (GBNF: llama.cpp reads two hex
    /// digits after `\x`, XGrammar all that follow, both four after `\u`).
    Gbnf,
    /// `\uhhhh`, four lowercase hex digits (Lark).
    Unicode4,
}

/// `s` as a quoted literal, appended to `out`.
pub(crate) fn quoted(s: &str, control: Control, out: &mut String) {
    out.push('"');
    escaped(s, control, out);
    out.push('"');
}

/// `s` escaped for the inside of a quoted literal, appended to `out` (a
/// literal written in pieces).
pub(crate) fn escaped(s: &str, control: Control, out: &mut String) {
    // Only ASCII bytes are escaped: runs between them are copied whole
    // (they end and start at char boundaries).
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..0x20 | 0x7f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        start = i + 1;
        if short.is_empty() {
            let _ = match control {
                Control::Gbnf => write!(out, "\\u{b:04X}"),
                Control::Unicode4 => write!(out, "\\u{b:04x}"),
            };
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[start..]);
}

/// A repetition's suffix: `?`, `*`, `+`, `{m,}`, `{m}` or `{m,n}` (the
/// same in GBNF and Lark).
pub(crate) fn bounds(min: u32, max: Option<u32>, out: &mut String) {
    let _ = match (min, max) {
        (0, Some(1)) => out.write_char('?'),
        (0, None) => out.write_char('*'),
        (1, None) => out.write_char('+'),
        (m, None) => write!(out, "{{{m},}}"),
        (m, Some(n)) if m == n => write!(out, "{{{m}}}"),
        (m, Some(n)) => write!(out, "{{{m},{n}}}"),
    };
}

#[cfg(test)]
mod tests {
    use super::{Control, quoted};

    fn q(s: &str, control: Control) -> String {
        let mut out = String::new();
        quoted(s, control, &mut out);
        out
    }

    #[test]
    fn escapes_quotes_backslashes_and_control_chars() {
        let s = "a\"b\\c\nd\re\tf\u{1}g\u{7f}h é 日本";
        assert_eq!(
            q(s, Control::Gbnf),
            "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u007Fh é 日本\""
        );
        assert_eq!(
            q(s, Control::Unicode4),
            "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u007fh é 日本\""
        );
        assert_eq!(q("", Control::Gbnf), "\"\"");
    }
}
