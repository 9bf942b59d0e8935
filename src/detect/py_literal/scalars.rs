//! Scalars of the pythonic converter: Python numbers (`_`, hex, octal,
//! binary, `.5`, `5.`) and keywords, written as JSON once they end.

use crate::core::ParamType;

use super::{ArgsConv, Role};

impl ArgsConv {
    /// A scalar ended: writes its JSON form for its role.
    #[inline]
    pub(super) fn end_scalar(&mut self, text: &str, number: bool) {
        self.hold = false;
        let quoted = self.role == Role::Key
            || (number && matches!(self.role, Role::Top(Some(ParamType::String))));
        if quoted {
            self.key_scalar = self.role == Role::Key;
            self.json.push('"');
            self.json.push_str(text);
            self.json.push('"');
        } else {
            self.json.push_str(text);
        }
        self.after_value();
    }
}

/// The length of the number characters at `bytes[i..]`, given the token so far.
///
/// Whether the number has a radix prefix (`0x`, `0o`, `0b`: no exponent sign) is
/// read from the whole token, the part already held and the part being
/// scanned alike, so where the deltas cut the token does not change it.
#[inline]
pub(super) fn number_len(bytes: &[u8], i: usize, tok: &str) -> usize {
    let held = tok.as_bytes();
    let mut second = held.get(1).copied();
    let mut prev = held.last().copied();
    let mut n = 0;
    for &c in &bytes[i..] {
        let radix = matches!(second, Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'));
        let ok = c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'.'
            || (matches!(c, b'+' | b'-')
                && (prev.is_none() || (!radix && matches!(prev, Some(b'e' | b'E')))));
        if !ok {
            break;
        }
        if held.len() + n == 1 {
            second = Some(c);
        }
        prev = Some(c);
        n += 1;
    }
    n
}

/// The JSON text of a Python (or JSON) number literal, if it is one and is finite.
pub(super) fn number_json(tok: &str) -> Option<String> {
    let mut neg = false;
    let mut body = tok;
    while let Some(rest) = body.strip_prefix(['-', '+']) {
        if body.starts_with('-') {
            neg = !neg;
        }
        body = rest;
    }
    let digits: String = body.chars().filter(|&c| c != '_').collect();
    let sign = if neg { "-" } else { "" };
    let lower = digits.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let v = u128::from_str_radix(rest, radix).ok()?;
            return Some(format!("{sign}{v}"));
        }
    }
    let (mantissa, exp) = match lower.find('e') {
        Some(p) => (&lower[..p], Some(&lower[p + 1..])),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(p) => (&mantissa[..p], Some(&mantissa[p + 1..])),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !frac.is_none_or(all_digits) {
        return None;
    }
    if int.is_empty() && frac.is_none_or(str::is_empty) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let mut out = String::with_capacity(tok.len() + 3);
    out.push_str(sign);
    out.push_str(if int.is_empty() { "0" } else { int });
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(if frac.is_empty() { "0" } else { frac });
    }
    if let Some(exp) = exp {
        let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if digits.is_empty() || !all_digits(digits) {
            return None;
        }
        out.push('e');
        out.push_str(exp);
    }
    // JSON cannot hold an infinite number; serde_json would refuse it later.
    let finite = out.parse::<f64>().is_ok_and(f64::is_finite);
    finite.then_some(out)
}
