//! A stand-in model server: it answers every chat request with one recorded
//! stream, so that `toolrouter proxy` can be tried (and its documentation
//! checked) with no model, no key and no network.
//!
//! ```sh
//! cargo run --example replay_upstream -- --listen 127.0.0.1:8000 examples/streams/weather-hermes.sse
//! ```
//!
//! Every `POST` gets the recording, frame by frame (a frame is an SSE event, or
//! an NDJSON line for a `.ndjson` file), with a short pause between frames as a
//! model server would; `GET …/models` gets a list with one model. The first
//! stderr line says where it listens.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{Method, StatusCode, header};
use axum::response::Response;
use futures::StreamExt;

/// The pause between two frames.
const PAUSE: Duration = Duration::from_millis(5);

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (listen, file) = parse_args(std::env::args().skip(1))?;
    let bytes = std::fs::read(&file).with_context(|| format!("read {}", file.display()))?;
    let ndjson = file.extension().is_some_and(|e| e == "ndjson");
    let frames: Vec<Bytes> = split_frames(&bytes, ndjson)
        .into_iter()
        .map(Bytes::copy_from_slice)
        .collect();
    let content_type = if ndjson {
        "application/x-ndjson"
    } else {
        "text/event-stream"
    };

    let app = Router::new().fallback(move |method: Method, uri: axum::http::Uri| {
        let frames = frames.clone();
        async move {
            if method == Method::GET && uri.path().ends_with("/models") {
                return Response::builder()
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(Body::from(
                        r#"{"object":"list","data":[{"id":"replay","object":"model","owned_by":"replay"}]}"#,
                    ))
                    .unwrap_or_default();
            }
            if method != Method::POST {
                return Response::builder()
                    .status(StatusCode::METHOD_NOT_ALLOWED)
                    .body(Body::empty())
                    .unwrap_or_default();
            }
            let paced = futures::stream::iter(frames).then(|frame| async move {
                tokio::time::sleep(PAUSE).await;
                Ok::<_, std::io::Error>(frame)
            });
            Response::builder()
                .header(header::CONTENT_TYPE, content_type)
                .body(Body::from_stream(paced))
                .unwrap_or_default()
        }
    });
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("bind {listen}"))?;
    eprintln!(
        "replay_upstream: serving {} at http://{}/v1",
        file.display(),
        listener.local_addr()?
    );
    axum::serve(listener, app).await?;
    Ok(())
}

/// `--listen ADDR FILE`, in either order.
fn parse_args(args: impl Iterator<Item = String>) -> anyhow::Result<(SocketAddr, PathBuf)> {
    let mut listen = None;
    let mut file = None;
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--listen" => {
                let value = args.next().context("--listen needs an address")?;
                listen = Some(value.parse().context("--listen: not an address")?);
            }
            "-h" | "--help" => {
                anyhow::bail!("usage: replay_upstream --listen ADDR FILE (.sse or .ndjson)")
            }
            _ if file.is_none() => file = Some(PathBuf::from(arg)),
            _ => anyhow::bail!("unexpected argument {arg:?}"),
        }
    }
    let listen = listen.unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8000)));
    Ok((
        listen,
        file.context("usage: replay_upstream --listen ADDR FILE")?,
    ))
}

/// The frames of a recording: SSE events (up to and with their blank line) or
/// NDJSON lines.
fn split_frames(bytes: &[u8], ndjson: bool) -> Vec<&[u8]> {
    let separator: &[u8] = if ndjson { b"\n" } else { b"\n\n" };
    let mut frames = Vec::new();
    let mut start = 0;
    while let Some(at) = find(&bytes[start..], separator) {
        let end = start + at + separator.len();
        frames.push(&bytes[start..end]);
        start = end;
    }
    if start < bytes.len() {
        frames.push(&bytes[start..]);
    }
    frames
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
