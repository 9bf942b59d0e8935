//! `Router`: drives a [`RouteSession`] over an async byte stream and runs each
//! finished call through an [`Executor`] as soon as it is complete.

use std::collections::HashMap;
use std::fmt::Display;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use futures::{Stream, StreamExt};
use rmcp::model::{CallToolResult, ContentBlock};
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};
use toolrouter_providers::{AdapterConfig, Wire};

use super::event::RouteEvent;
use super::input::{RawBytes, RouteInput};
use super::outcome::TurnOutcome;
use super::release::release_sized;
use super::session::RouteSession;
use crate::core::DetectEvent;
use crate::detect::DetectConfig;
use crate::exec::Executor;

/// Routes provider streams: detection, execution, results.
///
/// It holds what it uses: an [`Executor`] (which runs the calls) and, through
/// the executor's registry, the tool catalog the detector is given for each
/// session. `Hub::router()` builds one over a hub's executor.
#[derive(Debug, Clone)]
pub struct Router {
    executor: Executor,
    detect: DetectConfig,
    adapter: AdapterConfig,
    execute: bool,
}

impl Router {
    /// A router running calls through `executor` and detecting calls to the
    /// tools of its registry, in every enabled text format.
    pub fn new(executor: Executor) -> Self {
        Self {
            executor,
            detect: DetectConfig::default(),
            adapter: AdapterConfig::default(),
            execute: true,
        }
    }

    /// Sets which text formats are detected, and the detector's limits.
    pub fn detect_config(mut self, config: DetectConfig) -> Self {
        self.detect = config;
        self
    }

    /// Sets the wire adapters' limits.
    pub fn adapter_config(mut self, config: AdapterConfig) -> Self {
        self.adapter = config;
        self
    }

    /// Whether finished calls are executed (default `true`); without execution
    /// the router only detects.
    pub fn execute_calls(mut self, execute: bool) -> Self {
        self.execute = execute;
        self
    }

    /// A synchronous session for callers that feed bytes themselves and run
    /// calls through [`Executor::execute`] on their own schedule.
    pub fn session(&self, wire: Wire) -> RouteSession {
        RouteSession::with_adapter_config(
            wire,
            self.executor.registry().catalog(),
            self.detect.clone(),
            self.adapter,
        )
    }

    /// Routes one provider response. The returned stream yields every event
    /// as soon as it is known; each finished call starts executing at once (several
    /// run in parallel) and its `ToolResult` arrives when it completes. The stream
    /// ends after the provider's `Finish` and the last result. `bytes` is read up
    /// to the wire's end marker (`data: [DONE]`, `message_stop`, …) or its own
    /// end, whichever comes first; what is left of it after the marker is read
    /// and dropped in the background, briefly (so that an HTTP client's
    /// kept-alive connection goes back to its pool), and nothing waits for it.
    /// Dropping the returned stream cancels the calls still running.
    pub fn route<S, B, E>(&self, wire: Wire, bytes: S) -> RouteStream
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]> + Send + 'static,
        E: Display + Send + 'static,
    {
        self.route_items(wire, bytes.map(|chunk| chunk.map(RawBytes)))
    }

    /// [`route`](Self::route) for a typed client's stream: its items
    /// ([`RouteInput`]: decoded frames, neutral deltas, raw bytes) instead of
    /// the wire's bytes. The stream's end ends the turn, as the bytes' end
    /// does; an item that is an error breaks it off.
    pub fn route_items<S, I, E>(&self, wire: Wire, items: S) -> RouteStream
    where
        S: Stream<Item = Result<I, E>> + Send + 'static,
        I: RouteInput + Send + 'static,
        E: Display + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(256);
        let session = self.session(wire);
        let executor = self.executor.clone();
        let execute = self.execute;
        let task = tokio::spawn(drive(session, executor, execute, items, tx));
        RouteStream { rx, task }
    }

    /// Routes one response to its end and collects the outcome (all results in).
    pub async fn route_to_end<S, B, E>(&self, wire: Wire, bytes: S) -> TurnOutcome
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: AsRef<[u8]> + Send + 'static,
        E: Display + Send + 'static,
    {
        collect(wire, self.route(wire, bytes)).await
    }

    /// [`route_to_end`](Self::route_to_end) for a typed client's stream
    /// ([`route_items`](Self::route_items)).
    pub async fn route_items_to_end<S, I, E>(&self, wire: Wire, items: S) -> TurnOutcome
    where
        S: Stream<Item = Result<I, E>> + Send + 'static,
        I: RouteInput + Send + 'static,
        E: Display + Send + 'static,
    {
        collect(wire, self.route_items(wire, items)).await
    }
}

/// Every event of `stream`, into a turn's outcome.
async fn collect(wire: Wire, mut stream: RouteStream) -> TurnOutcome {
    let mut outcome = TurnOutcome::new(wire);
    while let Some(event) = stream.next().await {
        outcome.push(&event);
    }
    outcome
}

/// The event stream of one routed response; see [`Router::route`].
#[derive(Debug)]
pub struct RouteStream {
    rx: mpsc::Receiver<RouteEvent>,
    task: JoinHandle<()>,
}

impl Stream for RouteStream {
    type Item = RouteEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RouteEvent>> {
        self.rx.poll_recv(cx)
    }
}

impl Drop for RouteStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Finished {
    index: usize,
    id: String,
    name: String,
    result: CallToolResult,
    elapsed_ms: u64,
}

async fn drive<S, I, E>(
    mut session: RouteSession,
    executor: Executor,
    execute: bool,
    bytes: S,
    tx: mpsc::Sender<RouteEvent>,
) where
    S: Stream<Item = Result<I, E>> + Send + 'static,
    I: RouteInput + Send + 'static,
    E: Display + Send,
{
    // Let go once the turn has ended: its source may never end by itself.
    let mut bytes = Some(Box::pin(bytes));
    let mut running: JoinSet<Finished> = JoinSet::new();
    let mut in_flight: HashMap<tokio::task::Id, (usize, String, String)> = HashMap::new();
    let mut events = Vec::new();
    loop {
        // The stream ended or broke: it is not asked again.
        let mut gone = false;
        tokio::select! {
            chunk = next_chunk(&mut bytes), if bytes.is_some() => match chunk {
                Some(Ok(item)) => item.feed_into(&mut session, &mut events),
                Some(Err(e)) => {
                    // The turn's error, so its `Finish` says so too.
                    session.abort(format!("the provider stream broke: {e}"), &mut events);
                    gone = true;
                }
                None => {
                    session.finish(&mut events);
                    gone = true;
                }
            },
            Some(joined) = running.join_next_with_id(), if !running.is_empty() => {
                let finished = match joined {
                    Ok((task_id, finished)) => {
                        in_flight.remove(&task_id);
                        finished
                    }
                    Err(e) => {
                        // The executor catches handler panics; this is a panic in
                        // the executor itself or an abort.
                        let Some((index, id, name)) = in_flight.remove(&e.id()) else { continue };
                        Finished {
                            index,
                            id,
                            name,
                            result: CallToolResult::error(vec![ContentBlock::text(format!(
                                "the call did not complete: {e}"
                            ))]),
                            elapsed_ms: 0,
                        }
                    }
                };
                events.push(RouteEvent::ToolResult {
                    index: finished.index,
                    id: finished.id,
                    name: finished.name,
                    result: finished.result,
                    elapsed_ms: finished.elapsed_ms,
                });
            },
            else => break,
        }
        if gone {
            bytes = None;
        } else if session.is_finished()
            && let Some(rest) = bytes.take()
        {
            // The end marker came first.
            release_sized(rest, RouteInput::size);
        }
        for event in events.drain(..) {
            if execute && let RouteEvent::Detect(DetectEvent::CallEnd { index, call }) = &event {
                let executor = executor.clone();
                let call = call.clone();
                let index = *index;
                let meta = (index, call.id.clone(), call.name.clone());
                let handle = running.spawn(async move {
                    let started = Instant::now();
                    let result = executor.execute(&call).await;
                    Finished {
                        index,
                        id: call.id,
                        name: call.name,
                        result,
                        elapsed_ms: u64::try_from(started.elapsed().as_millis())
                            .unwrap_or(u64::MAX),
                    }
                });
                in_flight.insert(handle.id(), meta);
            }
            if tx.send(event).await.is_err() {
                // The consumer went away: dropping `running` cancels the calls.
                return;
            }
        }
    }
}

/// The next chunk of `bytes` (`None` once it is gone, which the caller's
/// guard never polls).
async fn next_chunk<S: Stream + Unpin>(bytes: &mut Option<S>) -> Option<S::Item> {
    match bytes {
        Some(bytes) => bytes.next().await,
        None => None,
    }
}
