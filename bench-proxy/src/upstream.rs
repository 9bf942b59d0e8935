//! The loopback upstream: a raw tokio HTTP/1.1 server on a thread and
//! runtime of its own answering every
//! `POST …/chat/completions` with a pre-encoded OpenAI-style SSE stream, one
//! HTTP chunk per SSE event, each in a write of its own, as fast as the socket
//! takes them. The request's body picks the workload by the model it names.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Which answer the upstream streams.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Workload {
    /// `chunks` text deltas of a few bytes each.
    Text,
    /// Prose, then a Hermes `<tool_call>` written into the text across small
    /// deltas: the detector turns it into `tool_calls`.
    Tool,
    /// The text workload with a pause of 1 ms after its first chunk, as a
    /// model's next token comes later: the first byte alone, not the burst.
    Paced,
    /// The text workload, paused after [`Upstream::hold_at`] chunks until released.
    Hold,
}

impl Workload {
    /// The model name that selects this workload.
    pub fn model(self) -> &'static str {
        match self {
            Self::Text => "bench-text",
            Self::Tool => "bench-tool",
            Self::Paced => "bench-paced",
            Self::Hold => "bench-hold",
        }
    }
}

/// Text chunks sent before a [`Workload::Hold`] answer pauses, at most.
const HOLD_AT: usize = 100;

/// The running upstream.
pub struct Upstream {
    /// Where it listens.
    pub addr: SocketAddr,
    release: watch::Sender<bool>,
    /// Chunks sent before a held answer pauses: 100, or half the answer if shorter.
    pub hold_at: usize,
    /// Bytes of text (the `content` values) sent before a held answer pauses.
    pub held_text_bytes: usize,
    accepted: Arc<AtomicUsize>,
}

struct Answers {
    hold_at: usize,
    text: Vec<Vec<u8>>,
    tool: Vec<Vec<u8>>,
    head: &'static [u8],
}

impl Upstream {
    /// Starts the upstream on a free loopback port; answers have `chunks`
    /// content chunks.
    pub async fn start(chunks: usize) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let text_tokens = text_tokens(chunks);
        let hold_at = HOLD_AT.min(chunks / 2).max(1);
        let held_text_bytes = text_tokens.iter().take(hold_at).map(String::len).sum();
        let answers = Arc::new(Answers {
            text: encode(&text_tokens),
            tool: encode(&tool_tokens(chunks)),
            hold_at,
            head: b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n",
        });
        let (release, released) = watch::channel(false);
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        // Its own thread and runtime, as a model server is its own process:
        // on the bench's shared runtime, a client task would often wake the
        // upstream's task on its own worker, and the direct path would pay
        // no wake-up of another thread at all, unlike any real deployment.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        std::thread::Builder::new()
            .name("upstream".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = TcpListener::from_std(listener) else {
                        return;
                    };
                    loop {
                        let Ok((socket, _)) = listener.accept().await else {
                            continue;
                        };
                        let _ = socket.set_nodelay(true);
                        count.fetch_add(1, Ordering::Relaxed);
                        tokio::spawn(serve(socket, answers.clone(), released.clone()));
                    }
                });
            })?;
        Ok(Self {
            addr,
            release,
            hold_at,
            held_text_bytes,
            accepted,
        })
    }

    /// The base URL an OpenAI SDK would take.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Lets held answers go on (`true`) or makes the next ones pause (`false`).
    pub fn set_released(&self, released: bool) {
        self.release.send_replace(released);
    }
}

/// Serves one keep-alive connection until the client closes it.
async fn serve(mut socket: TcpStream, answers: Arc<Answers>, mut released: watch::Receiver<bool>) {
    let mut buf = Vec::with_capacity(8192);
    loop {
        let Some(body) = read_request(&mut socket, &mut buf).await else {
            return;
        };
        let workload = if contains(&body, b"bench-tool") {
            Workload::Tool
        } else if contains(&body, b"bench-paced") {
            Workload::Paced
        } else if contains(&body, b"bench-hold") {
            Workload::Hold
        } else {
            Workload::Text
        };
        let chunks = match workload {
            Workload::Tool => &answers.tool,
            _ => &answers.text,
        };
        if socket.write_all(answers.head).await.is_err() {
            return;
        }
        for (i, chunk) in chunks.iter().enumerate() {
            if workload == Workload::Hold && i == answers.hold_at {
                // A closed sender (the bench is ending) lets the answer finish.
                let _ = released.wait_for(|go| *go).await;
            }
            if socket.write_all(chunk).await.is_err() {
                return;
            }
            if workload == Workload::Paced && i == 0 {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        }
    }
}

/// Reads one request (head and `content-length` body); `None` at end of stream.
async fn read_request(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let head_end = loop {
        if let Some(pos) = find(buf, b"\r\n\r\n") {
            break pos + 4;
        }
        if read_more(socket, buf).await? == 0 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        if read_more(socket, buf).await? == 0 {
            return None;
        }
    }
    let body = buf[head_end..head_end + length].to_vec();
    buf.drain(..head_end + length);
    Some(body)
}

async fn read_more(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<usize> {
    let mut chunk = [0u8; 8192];
    let n = socket.read(&mut chunk).await.ok()?;
    buf.extend_from_slice(&chunk[..n]);
    Some(n)
}

/// Where `needle` first occurs in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// Prose tokens of a few bytes, like a model's.
fn text_tokens(chunks: usize) -> Vec<String> {
    const WORDS: [&str; 8] = [
        "The", " weather", " in", " Paris", " is", " mild", " today", ",",
    ];
    (0..chunks)
        .map(|i| WORDS[i % WORDS.len()].to_owned())
        .collect()
}

/// Prose, then one Hermes call split into pieces of four bytes (the last
/// chunk of `chunks` closes it).
fn tool_tokens(chunks: usize) -> Vec<String> {
    let call = concat!(
        "<tool_call>\n",
        r#"{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius", "#,
        r#""days": 3, "details": ["wind", "humidity", "uv index"]}}"#,
        "\n</tool_call>"
    );
    let pieces: Vec<String> = call
        .as_bytes()
        .chunks(4)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let prose = chunks.saturating_sub(pieces.len()).max(1);
    let mut tokens = text_tokens(prose);
    if let Some(t) = tokens.last_mut() {
        t.push_str(".\n");
    }
    tokens.extend(pieces);
    tokens
}

/// The HTTP chunks of an answer: a role chunk with the first token, one
/// chunk per token, the finish chunk, `[DONE]`, the last (empty) chunk.
fn encode(tokens: &[String]) -> Vec<Vec<u8>> {
    let mut events = Vec::with_capacity(tokens.len() + 2);
    for (i, token) in tokens.iter().enumerate() {
        let role = if i == 0 { r#""role":"assistant","# } else { "" };
        events.push(chunk_json(&format!(
            r#"{{{role}"content":"{}"}},"logprobs":null,"finish_reason":null"#,
            escape(token)
        )));
    }
    events.push(chunk_json(r#"{},"logprobs":null,"finish_reason":"stop""#));
    events.push("data: [DONE]\n\n".to_owned());
    let mut chunks: Vec<Vec<u8>> = events
        .iter()
        .map(|e| format!("{:x}\r\n{e}\r\n", e.len()).into_bytes())
        .collect();
    chunks.push(b"0\r\n\r\n".to_vec());
    chunks
}

fn chunk_json(delta_and_finish: &str) -> String {
    format!(
        r#"data: {{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"bench","choices":[{{"index":0,"delta":{delta_and_finish}}}]}}"#
    ) + "\n\n"
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}
