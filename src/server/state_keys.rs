//! `StateKeys`: the HMAC keys that sign `requestState`, when they must be the
//! same in several processes (several `toolrouter serve --stateless` behind a
//! load balancer, where round two of a call may reach another process).
//!
//! Keys come from a file (`--state-key-file`, `TOOLROUTER_STATE_KEY_FILE`) or
//! from `TOOLROUTER_STATE_KEY`, one key a line, hex or base64, at least
//! [`MIN_STATE_KEY_BYTES`] bytes each. The first key signs; every key verifies,
//! so a key is rotated by putting the new one first and dropping the old one
//! once no state signed with it can still come back. Blank lines and lines
//! starting with `#` are skipped. A file is read hostilely: at most
//! [`MAX_STATE_KEY_FILE_BYTES`], a regular file, and on Unix not readable or
//! writable by every user.

use std::fmt;
use std::io::Read as _;
use std::path::Path;

/// The shortest key accepted, in bytes (HMAC-SHA256's output size).
pub const MIN_STATE_KEY_BYTES: usize = 32;
/// The largest key file read, in bytes.
pub const MAX_STATE_KEY_FILE_BYTES: u64 = 16 * 1024;
/// The most keys one file may hold (the current one and those still verified).
const MAX_KEYS: usize = 16;
/// The longest key accepted, in bytes.
const MAX_KEY_BYTES: usize = 1024;

/// The environment variable naming a key file.
pub const STATE_KEY_FILE_ENV: &str = "TOOLROUTER_STATE_KEY_FILE";
/// The environment variable holding the keys themselves (same format).
pub const STATE_KEY_ENV: &str = "TOOLROUTER_STATE_KEY";

/// Keys for signing and checking request states: the first signs, all verify.
/// `Debug` shows how many there are, never the keys.
#[derive(Clone, PartialEq, Eq)]
pub struct StateKeys {
    keys: Vec<Vec<u8>>,
}

impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKeys")
            .field("keys", &self.keys.len())
            .finish()
    }
}

/// Why keys could not be read: where (the file or variable, and the line) and
/// what is wrong. It never contains key material.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateKeyError {
    origin: String,
    line: Option<usize>,
    problem: String,
}

impl fmt::Display for StateKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}, line {line}: {}", self.origin, self.problem),
            None => write!(f, "{}: {}", self.origin, self.problem),
        }
    }
}

impl std::error::Error for StateKeyError {}

impl StateKeyError {
    fn new(origin: &str, line: Option<usize>, problem: impl Into<String>) -> Self {
        Self {
            origin: origin.to_owned(),
            line,
            problem: problem.into(),
        }
    }
}

impl StateKeys {
    /// One key, which signs and verifies; refused if shorter than
    /// [`MIN_STATE_KEY_BYTES`] or longer than 1,024 bytes.
    pub fn new(current: impl Into<Vec<u8>>) -> Result<Self, StateKeyError> {
        let key = current.into();
        check_length(key.len()).map_err(|p| StateKeyError::new("state key", None, p))?;
        Ok(Self { keys: vec![key] })
    }

    /// Reads keys from text in the file format; `origin` names the text's
    /// source in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, StateKeyError> {
        let mut keys = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = Some(index + 1);
            if keys.len() == MAX_KEYS {
                return Err(StateKeyError::new(
                    origin,
                    at,
                    format!("more than {MAX_KEYS} keys"),
                ));
            }
            let key = decode(line).map_err(|p| StateKeyError::new(origin, at, p))?;
            check_length(key.len()).map_err(|p| StateKeyError::new(origin, at, p))?;
            keys.push(key);
        }
        if keys.is_empty() {
            return Err(StateKeyError::new(origin, None, "no key in it"));
        }
        Ok(Self { keys })
    }

    /// Reads a key file: a regular file of at most
    /// [`MAX_STATE_KEY_FILE_BYTES`], UTF-8, in the format of [`parse`](Self::parse).
    /// On Unix a file readable or writable by every user is refused.
    pub fn load(path: &Path) -> Result<Self, StateKeyError> {
        let origin = format!("state key file {}", path.display());
        let fail = |problem: String| StateKeyError::new(&origin, None, problem);
        let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| fail(format!("cannot read its metadata: {e}")))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".to_owned()));
        }
        if meta.len() > MAX_STATE_KEY_FILE_BYTES {
            return Err(fail(format!(
                "{} bytes, more than the {MAX_STATE_KEY_FILE_BYTES} a key file may have",
                meta.len()
            )));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o007 != 0 {
                return Err(fail(format!(
                    "mode {mode:03o} lets every user read or change the keys; \
                     `chmod 600` it (or 640 for a group)"
                )));
            }
        }
        let mut bytes = Vec::new();
        file.take(MAX_STATE_KEY_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_STATE_KEY_FILE_BYTES {
            return Err(fail(format!(
                "more than the {MAX_STATE_KEY_FILE_BYTES} bytes a key file may have"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".to_owned()))?;
        Self::parse(&text, &origin)
    }

    /// Keys from the environment: the file `TOOLROUTER_STATE_KEY_FILE` names,
    /// else the keys in `TOOLROUTER_STATE_KEY`; `None` if neither is set.
    pub fn from_env() -> Result<Option<Self>, StateKeyError> {
        if let Some(path) = std::env::var_os(STATE_KEY_FILE_ENV).filter(|p| !p.is_empty()) {
            return Self::load(Path::new(&path)).map(Some);
        }
        match std::env::var(STATE_KEY_ENV) {
            Ok(text) if !text.trim().is_empty() => Self::parse(&text, STATE_KEY_ENV).map(Some),
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(StateKeyError::new(STATE_KEY_ENV, None, "not UTF-8 text"))
            }
        }
    }

    /// How many keys there are (the current one and those still verified).
    pub fn count(&self) -> usize {
        self.keys.len()
    }

    /// The keys, the signing one first.
    pub(crate) fn keys(&self) -> &[Vec<u8>] {
        &self.keys
    }
}

fn check_length(len: usize) -> Result<(), String> {
    if len < MIN_STATE_KEY_BYTES {
        return Err(format!(
            "the key is {len} bytes, at least {MIN_STATE_KEY_BYTES} are needed \
             (make one with `openssl rand -hex 32`)"
        ));
    }
    if len > MAX_KEY_BYTES {
        return Err(format!(
            "the key is {len} bytes, at most {MAX_KEY_BYTES} are accepted"
        ));
    }
    Ok(())
}

/// A key's bytes: `hex:` or `base64:` before it says which; without either, a
/// line of an even number of hex digits is hex, anything else base64.
fn decode(line: &str) -> Result<Vec<u8>, String> {
    if let Some(hex) = line.strip_prefix("hex:") {
        return decode_hex(hex.trim()).ok_or_else(|| "not hex digits".to_owned());
    }
    if let Some(b64) = line.strip_prefix("base64:") {
        return decode_base64(b64.trim()).ok_or_else(|| "not base64".to_owned());
    }
    if line.len().is_multiple_of(2) && line.bytes().all(|b| b.is_ascii_hexdigit()) {
        return decode_hex(line).ok_or_else(|| "not hex digits".to_owned());
    }
    decode_base64(line).ok_or_else(|| "neither hex nor base64".to_owned())
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Standard or URL-safe base64, padded or not.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // One leftover character (6 bits) cannot end a base64 text.
    (bits < 6).then_some(out)
}

#[cfg(test)]
mod tests;
