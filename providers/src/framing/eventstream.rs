//! AWS `application/vnd.amazon.eventstream` binary framing: prelude, headers, payload, CRC32s.
//!
//! Hand-written on top of `crc32fast`: the format is a dozen lines of spec, and the
//! AWS crate (`aws-smithy-eventstream`) pulls in the smithy runtime types for it.

use crate::delta::ErrorKind;

/// Prelude (12) + message CRC (4).
const MIN_FRAME: usize = 16;

/// The string headers a Bedrock frame carries (other header types are skipped).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FrameHeaders<'a> {
    /// `:message-type`: `event`, `exception` or `error`.
    pub(crate) message_type: Option<&'a str>,
    /// `:event-type`, e.g. `contentBlockDelta`.
    pub(crate) event_type: Option<&'a str>,
    /// `:exception-type`, e.g. `throttlingException`.
    pub(crate) exception_type: Option<&'a str>,
    /// `:error-code` of an `error` message.
    pub(crate) error_code: Option<&'a str>,
    /// `:error-message` of an `error` message.
    pub(crate) error_message: Option<&'a str>,
}

/// One decoded frame.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Frame<'a> {
    pub(crate) headers: FrameHeaders<'a>,
    pub(crate) payload: &'a [u8],
}

/// A frame that was skipped, and why.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SkippedFrame {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

/// The prelude was corrupt: frame boundaries are lost for good.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LostSync(pub(crate) String);

/// Incremental event-stream decoder.
///
/// State: `buf[start..]` holds the unread bytes; `skip` counts bytes of an over-long
/// frame still to drop; `lost` is set once a prelude failed its CRC, after which no
/// boundary can be trusted and every call fails.
#[derive(Debug)]
pub(crate) struct EventStreamDecoder {
    buf: Vec<u8>,
    start: usize,
    skip: usize,
    lost: Option<LostSync>,
    max_frame: usize,
}

impl EventStreamDecoder {
    pub(crate) fn new(max_frame: usize) -> Self {
        EventStreamDecoder {
            buf: Vec::new(),
            start: 0,
            skip: 0,
            lost: None,
            max_frame,
        }
    }

    /// Feeds a chunk, calling `on_frame` for every frame it completes.
    pub(crate) fn push(
        &mut self,
        mut chunk: &[u8],
        mut on_frame: impl FnMut(Result<Frame<'_>, SkippedFrame>),
    ) -> Result<(), LostSync> {
        if let Some(lost) = &self.lost {
            return Err(lost.clone());
        }
        if self.skip > 0 {
            let n = self.skip.min(chunk.len());
            self.skip -= n;
            chunk = &chunk[n..];
        }
        self.buf.extend_from_slice(chunk);
        loop {
            let avail = &self.buf[self.start..];
            if avail.len() < 12 {
                break;
            }
            let total = be_u32(&avail[0..4]) as usize;
            let headers_len = be_u32(&avail[4..8]) as usize;
            let prelude_crc = be_u32(&avail[8..12]);
            if crc32fast::hash(&avail[0..8]) != prelude_crc {
                return Err(self.lose("prelude checksum mismatch"));
            }
            if total < MIN_FRAME || headers_len > total - MIN_FRAME {
                return Err(self.lose(&format!(
                    "impossible frame lengths (total {total}, headers {headers_len})"
                )));
            }
            if total > self.max_frame {
                on_frame(Err(SkippedFrame {
                    kind: ErrorKind::TooLarge,
                    message: format!(
                        "event-stream frame of {total} bytes exceeds the limit of {} bytes",
                        self.max_frame
                    ),
                }));
                let have = avail.len().min(total);
                self.start += have;
                self.skip = total - have;
                continue;
            }
            if avail.len() < total {
                break;
            }
            let frame = &avail[..total];
            self.start += total;
            on_frame(decode_frame(frame, headers_len));
        }
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 8192 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        Ok(())
    }

    /// Ends the input; leftover bytes mean the last frame was cut.
    pub(crate) fn finish(&mut self) -> Option<SkippedFrame> {
        let left = self.buf.len() - self.start;
        self.buf.clear();
        self.start = 0;
        if self.lost.is_none() && (left > 0 || self.skip > 0) {
            Some(SkippedFrame {
                kind: ErrorKind::Truncated,
                message: format!("stream ended inside an event-stream frame ({left} bytes left)"),
            })
        } else {
            None
        }
    }

    fn lose(&mut self, why: &str) -> LostSync {
        let lost = LostSync(why.to_owned());
        self.lost = Some(lost.clone());
        self.buf.clear();
        self.start = 0;
        lost
    }
}

fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

fn decode_frame(frame: &[u8], headers_len: usize) -> Result<Frame<'_>, SkippedFrame> {
    let total = frame.len();
    let message_crc = be_u32(&frame[total - 4..]);
    if crc32fast::hash(&frame[..total - 4]) != message_crc {
        return Err(SkippedFrame {
            kind: ErrorKind::Checksum,
            message: "event-stream message checksum mismatch".to_owned(),
        });
    }
    let headers = parse_headers(&frame[12..12 + headers_len]).ok_or_else(|| SkippedFrame {
        kind: ErrorKind::Malformed,
        message: "event-stream headers are malformed".to_owned(),
    })?;
    Ok(Frame {
        headers,
        payload: &frame[12 + headers_len..total - 4],
    })
}

fn parse_headers(mut b: &[u8]) -> Option<FrameHeaders<'_>> {
    let mut out = FrameHeaders::default();
    while !b.is_empty() {
        let name_len = *b.first()? as usize;
        let name = std::str::from_utf8(b.get(1..1 + name_len)?).ok()?;
        b = &b[1 + name_len..];
        let value_type = *b.first()?;
        b = &b[1..];
        let fixed = match value_type {
            0 | 1 => Some(0),
            2 => Some(1),
            3 => Some(2),
            4 => Some(4),
            5 | 8 => Some(8),
            9 => Some(16),
            6 | 7 => None,
            _ => return None,
        };
        match fixed {
            Some(n) => b = b.get(n..)?,
            None => {
                let len = u16::from_be_bytes([*b.first()?, *b.get(1)?]) as usize;
                let value = b.get(2..2 + len)?;
                b = &b[2 + len..];
                if value_type == 7 {
                    let value = std::str::from_utf8(value).ok()?;
                    match name {
                        ":message-type" => out.message_type = Some(value),
                        ":event-type" => out.event_type = Some(value),
                        ":exception-type" => out.exception_type = Some(value),
                        ":error-code" => out.error_code = Some(value),
                        ":error-message" => out.error_message = Some(value),
                        _ => {}
                    }
                }
            }
        }
    }
    Some(out)
}

/// Encodes one frame with string headers (for tests and benches of this crate).
#[cfg(test)]
pub(crate) fn encode_frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut h = Vec::new();
    for (name, value) in headers {
        h.push(name.len() as u8);
        h.extend_from_slice(name.as_bytes());
        h.push(7);
        h.extend_from_slice(&(value.len() as u16).to_be_bytes());
        h.extend_from_slice(value.as_bytes());
    }
    let total = 12 + h.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(h.len() as u32).to_be_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out.extend_from_slice(&h);
    out.extend_from_slice(payload);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_be_bytes());
    out
}
