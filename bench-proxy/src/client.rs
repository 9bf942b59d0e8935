//! The client: a raw HTTP/1.1 connection kept alive across requests, which
//! timestamps every read and decodes the body (chunked, sized or
//! close-delimited) into SSE events as it arrives, so it adds little of its own.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::upstream::{Workload, find};

/// What one streamed answer measured.
#[derive(Debug, Default)]
pub struct Stream {
    /// From writing the request to the first byte of the body.
    pub first_byte: Duration,
    /// From writing the request to the end of the first SSE event.
    pub first_event: Duration,
    /// When each SSE event ended, from writing the request.
    pub events: Vec<Duration>,
    /// The answer carried a `tool_calls` delta.
    pub tool_calls: bool,
}

impl Stream {
    /// Time between consecutive events, in nanoseconds.
    pub fn gaps(&self) -> impl Iterator<Item = u64> + '_ {
        self.events
            .windows(2)
            .map(|w| (w[1] - w[0]).as_nanos() as u64)
    }
}

/// Counts the streams that have received `at` events.
pub struct Progress {
    /// The event count that counts.
    pub at: usize,
    /// Streams that got there.
    pub reached: AtomicUsize,
}

/// The bearer key every request carries: LiteLLM's master key (it will not
/// start without one); toolrouter runs without `--token` and ignores it.
pub const KEY: &str = "sk-bench-proxy-local";

/// The request body of a workload: one user message and one tool.
pub fn request(target: SocketAddr, workload: Workload) -> Vec<u8> {
    let body = format!(
        r#"{{"model":"{}","stream":true,"messages":[{{"role":"user","content":"What is the weather in Paris?"}}],"tools":[{{"type":"function","function":{{"name":"get_weather","parameters":{{"type":"object","properties":{{"city":{{"type":"string"}},"unit":{{"type":"string"}},"days":{{"type":"integer"}},"details":{{"type":"array","items":{{"type":"string"}}}}}}}}}}}}]}}"#,
        workload.model()
    );
    let mut req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {target}\r\ncontent-type: application/json\r\nauthorization: Bearer {KEY}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body.as_bytes());
    req
}

/// One kept-alive connection; it reconnects when the server closed the last one.
pub struct Conn {
    addr: SocketAddr,
    socket: Option<TcpStream>,
    buf: Vec<u8>,
}

enum Body {
    ChunkSize,
    ChunkData(usize),
    ChunkEnd,
    Trailer,
    Sized(usize),
    UntilClose,
    Done,
}

impl Conn {
    /// A connection to `addr`, opened now.
    pub async fn open(addr: SocketAddr) -> Result<Self, String> {
        let mut conn = Self {
            addr,
            socket: None,
            buf: Vec::with_capacity(64 * 1024),
        };
        conn.connect().await?;
        Ok(conn)
    }

    async fn connect(&mut self) -> Result<(), String> {
        let socket = TcpStream::connect(self.addr)
            .await
            .map_err(|e| format!("connect {}: {e}", self.addr))?;
        socket.set_nodelay(true).map_err(|e| e.to_string())?;
        self.socket = Some(socket);
        self.buf.clear();
        Ok(())
    }

    /// Sends `req` and reads its streamed answer to the end. An answer other
    /// than `200`, or one whose last event is not `data: [DONE]`, is an error.
    pub async fn stream(
        &mut self,
        req: &[u8],
        progress: Option<&Arc<Progress>>,
    ) -> Result<Stream, String> {
        if self.socket.is_none() {
            self.connect().await?;
        }
        let result = self.exchange(req, progress).await;
        if result.is_err() {
            self.socket = None;
        }
        result
    }

    async fn exchange(
        &mut self,
        req: &[u8],
        progress: Option<&Arc<Progress>>,
    ) -> Result<Stream, String> {
        let Self { socket, buf, .. } = self;
        let socket = socket.as_mut().ok_or("no connection")?;
        let start = Instant::now();
        socket.write_all(req).await.map_err(|e| e.to_string())?;
        // The head.
        let head_end = loop {
            if let Some(pos) = find(buf, b"\r\n\r\n") {
                break pos + 4;
            }
            if read(socket, buf).await? == 0 {
                return Err("closed before the head".into());
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        buf.drain(..head_end);
        let status = head.get(9..12).unwrap_or("");
        let header = |name: &str| {
            head.lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_owned())
        };
        let close = header("connection:").is_some_and(|v| v == "close");
        let mut state = if header("transfer-encoding:").is_some_and(|v| v.contains("chunked")) {
            Body::ChunkSize
        } else if let Some(n) = header("content-length:").and_then(|v| v.parse().ok()) {
            Body::Sized(n)
        } else {
            Body::UntilClose
        };
        // The body, decoded as it arrives; `sse` holds an unfinished event.
        let mut out = Stream::default();
        let mut sse: Vec<u8> = Vec::with_capacity(4096);
        let mut last_event = Vec::new();
        let mut first_byte = None;
        let mut eof = false;
        loop {
            let now = start.elapsed();
            let before = sse.len();
            decode(&mut state, buf, &mut sse, eof);
            if sse.len() > before && first_byte.is_none() {
                first_byte = Some(now);
            }
            let mut from = 0;
            while let Some(pos) = find(&sse[from..], b"\n\n") {
                let event = &sse[from..from + pos];
                out.tool_calls |= find(event, b"\"tool_calls\"").is_some();
                last_event.clear();
                last_event.extend_from_slice(event);
                out.events.push(now);
                if let Some(p) = progress
                    && out.events.len() == p.at
                {
                    p.reached.fetch_add(1, Ordering::Relaxed);
                }
                from += pos + 2;
            }
            sse.drain(..from);
            if matches!(state, Body::Done) {
                break;
            }
            if eof {
                return Err("closed mid-body".into());
            }
            eof = read(socket, buf).await? == 0;
        }
        if close || eof {
            self.socket = None;
        }
        if status != "200" {
            let text = String::from_utf8_lossy(&last_event).into_owned();
            return Err(format!("HTTP {status}: {text}"));
        }
        if last_event.trim_ascii() != b"data: [DONE]" {
            return Err(format!(
                "last event is not [DONE]: {}",
                String::from_utf8_lossy(&last_event)
            ));
        }
        out.first_byte = first_byte.unwrap_or_default();
        out.first_event = out.events.first().copied().unwrap_or_default();
        Ok(out)
    }
}

async fn read(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Result<usize, String> {
    buf.reserve(16 * 1024);
    socket.read_buf(buf).await.map_err(|e| e.to_string())
}

/// Moves what `buf` holds of the body into `out`, advancing `state`.
fn decode(state: &mut Body, buf: &mut Vec<u8>, out: &mut Vec<u8>, eof: bool) {
    let mut at = 0;
    loop {
        let rest = &buf[at..];
        match *state {
            Body::ChunkSize => {
                let Some(end) = find(rest, b"\r\n") else {
                    break;
                };
                let line = String::from_utf8_lossy(&rest[..end]);
                let hex = line.split(';').next().unwrap_or("").trim();
                let size = usize::from_str_radix(hex, 16).unwrap_or(0);
                at += end + 2;
                *state = if size == 0 {
                    Body::Trailer
                } else {
                    Body::ChunkData(size)
                };
            }
            Body::ChunkData(left) => {
                let take = left.min(rest.len());
                if take == 0 {
                    break;
                }
                out.extend_from_slice(&rest[..take]);
                at += take;
                *state = if take == left {
                    Body::ChunkEnd
                } else {
                    Body::ChunkData(left - take)
                };
            }
            Body::ChunkEnd => {
                if rest.len() < 2 {
                    break;
                }
                at += 2;
                *state = Body::ChunkSize;
            }
            Body::Trailer => {
                let Some(end) = find(rest, b"\r\n") else {
                    break;
                };
                at += end + 2;
                if end == 0 {
                    *state = Body::Done;
                }
            }
            Body::Sized(left) => {
                let take = left.min(rest.len());
                out.extend_from_slice(&rest[..take]);
                at += take;
                *state = if take == left {
                    Body::Done
                } else {
                    Body::Sized(left - take)
                };
                if take < left {
                    break;
                }
            }
            Body::UntilClose => {
                out.extend_from_slice(rest);
                at = buf.len();
                if eof {
                    *state = Body::Done;
                }
                break;
            }
            Body::Done => break,
        }
    }
    buf.drain(..at);
}
