//! `StrDecoder`: decodes the content of a JSON string fed in pieces (escapes
//! and surrogate pairs cut between pieces carried in its state), and the
//! escape tables the JSON readers share.

/// Escape state of a string decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Escape {
    #[default]
    None,
    Backslash,
    Unicode {
        digits: u8,
        value: u16,
    },
}

/// The character a one-byte JSON escape stands for, by the byte after the
/// backslash; 0 for `u` (four hex digits follow) and for bytes that are no
/// escape.
pub(crate) static SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The value of hex digits (`None` if one is not a hex digit): a `\u`
/// escape's four, here and in the Python-literal converter.
#[inline]
pub(crate) fn hex_value(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |v, &b| {
        let d = char::from(b).to_digit(16)?;
        Some(v * 16 + d)
    })
}

/// The code point a UTF-16 surrogate pair stands for: `high` in
/// D800–DBFF, `low` in DC00–DFFF.
#[inline]
pub(crate) fn surrogate_pair(high: u32, low: u32) -> u32 {
    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
}

/// Decodes JSON string content incrementally.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrDecoder {
    escape: Escape,
    high: Option<u16>,
}

impl StrDecoder {
    /// Between escapes: the next byte that is neither `"` nor `\\` decodes to itself.
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        self.escape == Escape::None && self.high.is_none()
    }

    /// Decodes from `input` into `out` up to the closing quote; returns the offset
    /// just after the quote, or `None` when the string goes on. `Err(offset)` on an
    /// invalid escape.
    #[inline]
    pub(crate) fn decode(&mut self, input: &str, out: &mut String) -> Result<Option<usize>, usize> {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match self.escape {
                Escape::None if self.high.is_none() => {
                    // Runs of plain text, and the clusters of one-byte escapes
                    // between them, by table: file content inside a JSON string
                    // inside a JSON string is mostly `\\\"` and `\\\\` between
                    // short runs, where a branch on which escape it is
                    // mispredicts. `\u`, a bad escape and an escape cut by the
                    // end of the input go through the states.
                    'fast: loop {
                        let Some(rel) = super::super::scan::find2(b'"', b'\\', &bytes[i..]) else {
                            out.push_str(&input[i..]);
                            return Ok(None);
                        };
                        if rel > 0 {
                            out.push_str(&input[i..i + rel]);
                        }
                        i += rel;
                        if bytes[i] == b'"' {
                            return Ok(Some(i + 1));
                        }
                        // The whole cluster this backslash opens, without a
                        // search per escape (measured: a `find2` each made
                        // 4 KB chunks 7-11 % slower).
                        while bytes.get(i) == Some(&b'\\') {
                            let decoded = bytes
                                .get(i + 1)
                                .map_or(0, |&c| SIMPLE_ESCAPES[usize::from(c)]);
                            if decoded == 0 {
                                break 'fast;
                            }
                            out.push(char::from(decoded));
                            i += 2;
                        }
                    }
                    self.escape = Escape::Backslash;
                    i += 1;
                }
                Escape::None => {
                    // A high surrogate waits for its low half: byte by byte
                    // until it is settled.
                    if bytes[i] == b'\\' {
                        self.escape = Escape::Backslash;
                        i += 1;
                        continue;
                    }
                    self.flush_high(out);
                }
                Escape::Backslash => {
                    let c = bytes[i];
                    i += 1;
                    if c == b'u' {
                        self.escape = Escape::Unicode {
                            digits: 0,
                            value: 0,
                        };
                        continue;
                    }
                    let decoded = SIMPLE_ESCAPES[usize::from(c)];
                    if decoded == 0 {
                        return Err(i - 1);
                    }
                    self.flush_high(out);
                    out.push(char::from(decoded));
                    self.escape = Escape::None;
                }
                Escape::Unicode { digits, value } => {
                    let c = bytes[i];
                    let Some(d) = (c as char).to_digit(16) else {
                        return Err(i);
                    };
                    i += 1;
                    let value = (value << 4) | d as u16;
                    if digits < 3 {
                        self.escape = Escape::Unicode {
                            digits: digits + 1,
                            value,
                        };
                        continue;
                    }
                    self.escape = Escape::None;
                    self.code_unit(value, out);
                }
            }
        }
        Ok(None)
    }

    /// Appends one UTF-16 code unit from a `\u` escape, pairing surrogates.
    fn code_unit(&mut self, unit: u16, out: &mut String) {
        match unit {
            0xD800..=0xDBFF => {
                self.flush_high(out);
                self.high = Some(unit);
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some(high) => {
                    let c = surrogate_pair(u32::from(high), u32::from(unit));
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                None => out.push('\u{FFFD}'),
            },
            _ => {
                self.flush_high(out);
                out.push(char::from_u32(unit as u32).unwrap_or('\u{FFFD}'));
            }
        }
    }

    /// A high surrogate not followed by a low one becomes U+FFFD.
    fn flush_high(&mut self, out: &mut String) {
        if self.high.take().is_some() {
            out.push('\u{FFFD}');
        }
    }
}
