//! A loopback model server that replays recorded answers, one per request, in
//! order: SSE recordings frame by frame (each frame its own write, with a short
//! pause, so a proxy reads them as separate pieces), JSON answers with any
//! status. It records every request, can hold a stream at a frame until the
//! test releases it, can cut a stream mid-way (the connection breaks without
//! the chunked body's end), and notices a client that leaves before the end.

#![allow(clippy::unwrap_used)] // test glue may unwrap

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::Notify;

/// One scripted answer.
pub struct Reply {
    status: u16,
    content_type: &'static str,
    frames: Vec<Bytes>,
    pause: Duration,
    /// Break the connection after this many frames.
    cut_after: Option<usize>,
    /// Hold before this frame until the gate is opened.
    hold_at: Option<(usize, Arc<Notify>)>,
}

impl Reply {
    /// An SSE recording, one frame per blank-line-separated event.
    pub fn sse(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut frames = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i + 1 < text.len() {
            if text[i] == b'\n' && text[i + 1] == b'\n' {
                frames.push(Bytes::copy_from_slice(&text[start..i + 2]));
                start = i + 2;
                i += 2;
            } else {
                i += 1;
            }
        }
        if start < text.len() {
            frames.push(Bytes::copy_from_slice(&text[start..]));
        }
        Self {
            status: 200,
            content_type: "text/event-stream",
            frames,
            pause: Duration::from_millis(5),
            cut_after: None,
            hold_at: None,
        }
    }

    /// An NDJSON recording (Ollama's native stream), one frame per line.
    pub fn ndjson(path: impl AsRef<Path>) -> Self {
        let path = path.as_ref();
        let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let frames = text
            .split_inclusive(|b| *b == b'\n')
            .map(Bytes::copy_from_slice)
            .collect();
        Self {
            status: 200,
            content_type: "application/x-ndjson",
            frames,
            pause: Duration::from_millis(5),
            cut_after: None,
            hold_at: None,
        }
    }

    /// A binary recording (an AWS event stream) with its content type, sent
    /// in pieces of `piece` bytes that do not follow its frames.
    pub fn binary(path: impl AsRef<Path>, content_type: &'static str, piece: usize) -> Self {
        let path = path.as_ref();
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Self {
            status: 200,
            content_type,
            frames: bytes.chunks(piece).map(Bytes::copy_from_slice).collect(),
            pause: Duration::from_millis(2),
            cut_after: None,
            hold_at: None,
        }
    }

    /// An SSE answer of the given frames (each `data: …\n\n`).
    pub fn frames(frames: impl IntoIterator<Item = String>) -> Self {
        Self {
            status: 200,
            content_type: "text/event-stream",
            frames: frames.into_iter().map(Bytes::from).collect(),
            pause: Duration::from_millis(5),
            cut_after: None,
            hold_at: None,
        }
    }

    /// A JSON answer in one piece.
    pub fn json(status: u16, body: &Value) -> Self {
        Self {
            status,
            content_type: "application/json",
            frames: vec![Bytes::from(body.to_string())],
            pause: Duration::ZERO,
            cut_after: None,
            hold_at: None,
        }
    }

    /// A plain-text answer in one piece.
    pub fn text(status: u16, body: &str) -> Self {
        Self {
            status,
            content_type: "text/plain",
            frames: vec![Bytes::from(body.to_owned())],
            pause: Duration::ZERO,
            cut_after: None,
            hold_at: None,
        }
    }

    /// Breaks the connection after `n` frames.
    pub fn cut_after(mut self, n: usize) -> Self {
        self.cut_after = Some(n);
        self
    }

    /// Waits before frame `n` until `gate` is notified.
    pub fn hold_at(mut self, n: usize, gate: Arc<Notify>) -> Self {
        self.hold_at = Some((n, gate));
        self
    }

    /// Sets the pause between frames.
    pub fn pause(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: Method,
    pub path: String,
    /// The query string (empty when none).
    pub query: String,
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Default)]
struct Script {
    replies: VecDeque<Reply>,
    received: Vec<Received>,
    /// Streams whose client left before their end.
    abandoned: usize,
}

/// The running server.
#[derive(Clone)]
pub struct ReplayServer {
    base: String,
    script: Arc<Mutex<Script>>,
    abandoned: Arc<Notify>,
}

impl ReplayServer {
    /// Starts a server answering with `replies`, in order.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let script = Arc::new(Mutex::new(Script {
            replies: replies.into(),
            ..Script::default()
        }));
        let abandoned = Arc::new(Notify::new());
        let server = Self {
            base: String::new(),
            script,
            abandoned,
        };
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(server.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            base: format!("http://{addr}/v1"),
            ..server
        }
    }

    /// The base URL an SDK would take (`http://127.0.0.1:PORT/v1`).
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.script.lock().unwrap().received.clone()
    }

    /// Waits until a client has left a stream before its end; `false` on timeout.
    pub async fn wait_abandoned(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.abandoned.notified();
            if self.script.lock().unwrap().abandoned > 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.script.lock().unwrap().abandoned > 0;
            }
        }
    }
}

/// Counts a stream dropped before its last frame.
struct Watch {
    server: ReplayServer,
    done: bool,
}

impl Watch {
    /// The stream was sent to its end.
    fn complete(mut self) {
        self.done = true;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.done {
            self.server.script.lock().unwrap().abandoned += 1;
            self.server.abandoned.notify_waiters();
        }
    }
}

async fn answer(
    State(server): State<ReplayServer>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let next = {
        let mut script = server.script.lock().unwrap();
        script.received.push(Received {
            method,
            path: uri.path().to_owned(),
            query: uri.query().unwrap_or("").to_owned(),
            headers,
            body,
        });
        script.replies.pop_front()
    };
    let Some(reply) = next else {
        return Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from("the replay server has no more answers"))
            .unwrap();
    };
    let status = reply.status;
    let content_type = reply.content_type;
    let watch = Watch {
        server: server.clone(),
        done: false,
    };
    let state = (reply, 0usize, watch);
    let frames = futures::stream::unfold(state, |(reply, n, mut watch)| async move {
        if watch.done {
            return None;
        }
        if reply.cut_after == Some(n) {
            // Let the frames before go out first: hyper drops what it has
            // not written when a body fails.
            tokio::time::sleep(Duration::from_millis(50)).await;
            watch.done = true;
            let cut = std::io::Error::other("cut by the test");
            return Some((Err(cut), (reply, n, watch)));
        }
        if n >= reply.frames.len() {
            watch.complete();
            return None;
        }
        if let Some((at, gate)) = &reply.hold_at
            && *at == n
        {
            gate.notified().await;
        }
        if n > 0 && !reply.pause.is_zero() {
            tokio::time::sleep(reply.pause).await;
        }
        let frame = reply.frames[n].clone();
        Some((Ok::<_, std::io::Error>(frame), (reply, n + 1, watch)))
    });
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(Body::from_stream(frames))
        .unwrap()
}
