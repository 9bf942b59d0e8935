//! `ChunkMeta`: the answer's `id`, `model`, `created` and
//! `system_fingerprint`, which the wire adapter skips, read from the first
//! `data:` frames of the upstream's stream by a `MetaSniffer`.

use serde::Deserialize;

/// What the client's chunks carry besides the delta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkMeta {
    pub(crate) id: String,
    pub(crate) model: String,
    pub(crate) created: u64,
    pub(crate) system_fingerprint: Option<String>,
}

/// The most bytes of the stream's start read for the metadata.
const SNIFF_LIMIT: usize = 64 * 1024;

/// Reads the metadata from the first frames that carry it, keeping at most
/// [`SNIFF_LIMIT`] bytes of one line; once found (or past the limit) it reads
/// nothing more.
#[derive(Debug, Default)]
pub(crate) struct MetaSniffer {
    /// The current line's start.
    line: Vec<u8>,
    /// Bytes looked at so far.
    seen: usize,
    done: bool,
    id: Option<String>,
    model: Option<String>,
    created: Option<u64>,
    system_fingerprint: Option<String>,
}

#[derive(Deserialize)]
struct FrameMeta {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    created: Option<u64>,
    #[serde(default)]
    system_fingerprint: Option<String>,
    /// Anthropic's `message_start` carries them in its `message`.
    #[serde(default)]
    message: Option<MessageMeta>,
    /// Responses' `response.created` carries them in its `response`.
    #[serde(default)]
    response: Option<MessageMeta>,
}

#[derive(Deserialize)]
struct MessageMeta {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    /// Responses' creation time.
    #[serde(default)]
    created_at: Option<u64>,
}

impl MetaSniffer {
    /// Looks at the next bytes of the stream.
    pub(crate) fn observe(&mut self, bytes: &[u8]) {
        if self.done {
            return;
        }
        self.seen += bytes.len();
        let mut rest = bytes;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            self.line.extend_from_slice(&rest[..end]);
            self.read_line();
            self.line.clear();
            rest = &rest[end + 1..];
            if self.done {
                return;
            }
        }
        self.line.extend_from_slice(rest);
        if self.line.len() > SNIFF_LIMIT || self.seen > 4 * SNIFF_LIMIT {
            self.give_up();
        }
    }

    /// The metadata: what the stream said, else `fallback_model`, an id made
    /// here and the current time.
    pub(crate) fn meta(&self, fallback_model: &str) -> ChunkMeta {
        ChunkMeta {
            id: self
                .id
                .clone()
                .unwrap_or_else(|| format!("chatcmpl-{}", uuid::Uuid::new_v4().simple())),
            model: self
                .model
                .clone()
                .unwrap_or_else(|| fallback_model.to_owned()),
            created: self.created.unwrap_or_else(now),
            system_fingerprint: self.system_fingerprint.clone(),
        }
    }

    fn read_line(&mut self) {
        let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let Some(data) = line.strip_prefix(b"data:") else {
            return;
        };
        let Ok(mut frame) = serde_json::from_slice::<FrameMeta>(data.trim_ascii()) else {
            return;
        };
        if let Some(message) = frame.message.take().or(frame.response.take()) {
            frame.id = frame.id.or(message.id.map(serde_json::Value::String));
            frame.model = frame.model.or(message.model);
            frame.created = frame.created.or(message.created_at);
        }
        // Azure's first chunk has `id: ""` and `model: ""`: keep looking.
        let id = match frame.id {
            Some(serde_json::Value::String(id)) => Some(id),
            Some(serde_json::Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        if self.id.is_none() {
            self.id = id.filter(|id| !id.is_empty());
        }
        if self.model.is_none() {
            self.model = frame.model.filter(|m| !m.is_empty());
        }
        if self.created.is_none() {
            self.created = frame.created.filter(|c| *c > 0);
        }
        if self.system_fingerprint.is_none() {
            self.system_fingerprint = frame.system_fingerprint.filter(|f| !f.is_empty());
        }
        if self.id.is_some() && self.model.is_some() {
            self.give_up();
        }
    }

    fn give_up(&mut self) {
        self.done = true;
        self.line = Vec::new();
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
