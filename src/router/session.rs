//! `RouteSession`: the synchronous core of the router. Provider bytes in,
//! [`RouteEvent`]s out; no execution, no I/O.

use std::sync::Arc;

use toolrouter_providers::{
    AdapterConfig, ArgumentsRule, ErrorKind, PartialCall, ProviderDelta, StopReason, TurnStatus,
    Wire, WireAdapter,
};

use super::cut_text::CutTextCalls;
use super::event::RouteEvent;
use super::structured::StructuredCalls;
use crate::convert::Dialect;
use crate::core::{DetectEvent, ToolCatalog};
use crate::detect::{DetectConfig, StreamDetector};

/// Routes one provider turn, synchronously.
///
/// Feed the provider's bytes as they arrive, cut anywhere; then call
/// [`finish`](Self::finish). The turn ends at the wire's end marker
/// (`data: [DONE]`, `message_stop`, …, [`WireAdapter::is_done`]) if one comes:
/// the `feed` that reads it appends the closing `Finish`, the session is
/// [finished](Self::is_finished), and whatever is fed after it is ignored, so
/// the caller can stop reading an upstream that keeps its connection open.
/// Text deltas go through the streaming detector, so calls
/// the model wrote into its text come out as the same `CallStart`/`ArgsDelta`/
/// `CallEnd` events as the provider's structured calls, with one index sequence.
/// Structured calls are assembled here (not by the detector, which parses text
/// only), under the same [`ArgumentsRule`] as the providers-only `TurnCollector`,
/// bounded by [`DetectConfig::max_call_bytes`]. A call in the text that the
/// stream cut off stays in the text (the detector's `Unfinished` diagnostic)
/// and is one of the turn's `partial_calls`, as a structured call cut off is.
pub struct RouteSession {
    wire: Wire,
    adapter: Box<dyn WireAdapter>,
    detector: StreamDetector,
    structured: StructuredCalls,
    /// Text calls cut off.
    cut_text: CutTextCalls,
    status: TurnStatus,
    deltas: Vec<ProviderDelta>,
    detected: Vec<DetectEvent>,
    n_completed: usize,
    finished: bool,
    /// Bytes or frames went to the wire's adapter.
    wire_fed: bool,
    /// Neutral deltas were fed ([`feed_deltas`](Self::feed_deltas)): when
    /// nothing went to the adapter, `finish` does not ask it.
    deltas_fed: bool,
    /// A delta said the stream was cut off.
    cut: bool,
}

impl std::fmt::Debug for RouteSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteSession")
            .field("wire", &self.wire)
            .field("n_completed", &self.n_completed)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl RouteSession {
    /// A session for one turn on `wire`, detecting text calls to the tools in
    /// `catalog`.
    pub fn new(wire: Wire, catalog: Arc<ToolCatalog>, detect: DetectConfig) -> Self {
        Self::with_adapter_config(wire, catalog, detect, AdapterConfig::default())
    }

    /// As [`new`](Self::new), with adapter limits.
    pub fn with_adapter_config(
        wire: Wire,
        catalog: Arc<ToolCatalog>,
        detect: DetectConfig,
        adapter: AdapterConfig,
    ) -> Self {
        let rule = ArgumentsRule::with_max_bytes(detect.max_call_bytes);
        Self {
            wire,
            adapter: wire.adapter_with(adapter),
            detector: StreamDetector::new(catalog, detect),
            structured: StructuredCalls::new(rule, Dialect::format_for_wire(wire)),
            cut_text: CutTextCalls::default(),
            status: TurnStatus::new(),
            deltas: Vec::new(),
            detected: Vec::new(),
            n_completed: 0,
            finished: false,
            wire_fed: false,
            deltas_fed: false,
            cut: false,
        }
    }

    /// Replaces the wire's adapter (tests: an adapter that fails to finish).
    #[cfg(test)]
    pub(super) fn set_adapter(&mut self, adapter: Box<dyn WireAdapter>) {
        self.adapter = adapter;
    }

    /// The wire this session reads.
    pub fn wire(&self) -> Wire {
        self.wire
    }

    /// Feeds the next bytes; appends the events they complete, and the
    /// closing [`RouteEvent::Finish`] when they hold the wire's end marker.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<RouteEvent>) {
        if self.finished {
            return;
        }
        self.wire_fed = true;
        let result = self.adapter.feed(bytes, &mut self.deltas);
        self.drain_deltas(out);
        match result {
            Err(e) => self.fail(e.to_string(), out),
            Ok(()) if self.adapter.is_done() => self.finish(out),
            Ok(()) => {}
        }
    }

    /// Feeds one frame a client decoded itself (an SSE event's name and
    /// data, an NDJSON line; [`WireAdapter::feed_frame`]), past the framing;
    /// as [`feed`](Self::feed) otherwise. A typed client's item that failed
    /// to deserialize but kept its text goes in here, so nothing is lost.
    pub fn feed_frame(&mut self, event: &str, data: &[u8], out: &mut Vec<RouteEvent>) {
        if self.finished {
            return;
        }
        self.wire_fed = true;
        self.adapter.feed_frame(event, data, &mut self.deltas);
        self.drain_deltas(out);
        if self.adapter.is_done() {
            self.finish(out);
        }
    }

    /// Feeds neutral deltas, which a typed client's items were mapped to
    /// (text, reasoning, tool-call start / arguments / end, usage, finish,
    /// errors): the wire's adapter is skipped, the rest is as for bytes
    /// (text through the detector, calls assembled and bounded). Feed the
    /// deltas of one item together: a call's start and the signature that
    /// comes with it (Gemini's) go out in that order only when they arrive in
    /// one batch, as a wire's frame gives them. A turn fed
    /// only deltas that [`finish`](Self::finish)es without a
    /// [`ProviderDelta::Finish`] or an error was cut off, as on the byte
    /// path.
    pub fn feed_deltas(
        &mut self,
        deltas: impl IntoIterator<Item = ProviderDelta>,
        out: &mut Vec<RouteEvent>,
    ) {
        if self.finished {
            return;
        }
        self.deltas_fed = true;
        self.deltas.extend(deltas);
        self.drain_deltas(out);
    }

    /// Whether the turn has ended: its `Finish` was appended (by
    /// [`finish`](Self::finish), [`abort`](Self::abort), an adapter that
    /// could not read on, or the wire's end marker), and nothing more will be.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Ends the turn: flushes the adapter and the detector and appends the
    /// closing [`RouteEvent::Finish`], exactly one, which carries the adapter's
    /// error when it could not finish (a Bedrock stream that lost sync).
    pub fn finish(&mut self, out: &mut Vec<RouteEvent>) {
        if self.finished {
            return;
        }
        let result = if self.deltas_fed && !self.wire_fed {
            // A typed stream's end: cut off unless it said it finished.
            if self.status.raw_stop().is_none() && !self.status.provider_error() && !self.cut {
                self.deltas.push(ProviderDelta::Error {
                    kind: ErrorKind::Truncated,
                    message: "stream ended before a finish reason".to_owned(),
                });
            }
            Ok(())
        } else {
            self.adapter.finish(&mut self.deltas)
        };
        self.drain_deltas(out);
        if let Err(e) = result {
            // `fail` ends the calls and writes the one `Finish`.
            self.fail(e.to_string(), out);
            return;
        }
        self.end_calls(out);
        // Calls found in the text complete the turn as structured calls do.
        let stop = self
            .status
            .stop(self.n_completed + self.structured.n_completed());
        out.push(RouteEvent::Finish {
            stop,
            error: self.status.error().map(str::to_owned),
            partial_calls: self.partial_calls(),
        });
    }

    /// Ends the turn on a failure of the byte stream itself (a broken
    /// connection, a turn over its byte limit): a [`RouteEvent::ProviderError`]
    /// of kind `Truncated` that is the turn's error, then what
    /// [`finish`](Self::finish) does, so the closing `Finish` has stop `error`
    /// and carries the message.
    pub fn abort(&mut self, message: String, out: &mut Vec<RouteEvent>) {
        if self.finished {
            return;
        }
        let delta = ProviderDelta::Error {
            kind: ErrorKind::Truncated,
            message: message.clone(),
        };
        self.status.push(&delta);
        self.drain_detected(out);
        out.push(RouteEvent::ProviderError {
            kind: ErrorKind::Truncated,
            message,
        });
        self.finish(out);
    }

    /// Flushes the detector and reports the structured calls left open.
    fn end_calls(&mut self, out: &mut Vec<RouteEvent>) {
        self.detector.finish(&mut self.detected);
        self.drain_detected(out);
        self.structured.finish(out);
        self.finished = true;
    }

    /// An adapter that cannot read on: report it and stop reading.
    fn fail(&mut self, message: String, out: &mut Vec<RouteEvent>) {
        let delta = ProviderDelta::Error {
            kind: ErrorKind::Malformed,
            message: message.clone(),
        };
        self.status.push(&delta);
        out.push(RouteEvent::ProviderError {
            kind: ErrorKind::Malformed,
            message,
        });
        self.end_calls(out);
        out.push(RouteEvent::Finish {
            stop: StopReason::Error,
            error: self.status.error().map(str::to_owned),
            partial_calls: self.partial_calls(),
        });
    }

    /// The calls cut off: structured ones, then those in the text.
    fn partial_calls(&self) -> Vec<PartialCall> {
        let mut calls = self.structured.partial_calls();
        calls.extend(self.cut_text.partial_calls());
        calls
    }

    fn drain_deltas(&mut self, out: &mut Vec<RouteEvent>) {
        let mut deltas = std::mem::take(&mut self.deltas);
        let mut iter = deltas.drain(..);
        while let Some(delta) = iter.next() {
            match delta {
                ProviderDelta::Text(text) => self.detector.feed(&text, &mut self.detected),
                ProviderDelta::Reasoning(text) => {
                    self.drain_detected(out);
                    out.push(DetectEvent::Reasoning { text: text.into() }.into());
                }
                ProviderDelta::Refusal(text) => {
                    self.drain_detected(out);
                    out.push(RouteEvent::Refusal { text: text.into() });
                }
                ProviderDelta::ToolCallStart { key, id, name } => {
                    // A signature sent with the call (Gemini's) goes out
                    // before its `CallStart`, so a writer has it at hand.
                    // (`as_slice` looks ahead without a `Peekable`'s
                    // check on every delta.)
                    let signature = match iter.as_slice().first() {
                        Some(ProviderDelta::Signature { key: Some(of), .. }) if *of == key => {
                            match iter.next() {
                                Some(ProviderDelta::Signature { signature, .. }) => Some(signature),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    let detector = &mut self.detector;
                    let next_index = || detector.reserve_call_index();
                    self.structured
                        .start(key, id, name, signature, next_index, out);
                }
                ProviderDelta::Signature {
                    key: Some(key),
                    signature,
                } => self.structured.sign(key, signature, out),
                ProviderDelta::ToolCallArgs { key, fragment } => {
                    self.structured.args(key, fragment, out)
                }
                ProviderDelta::ToolCallEnd { key } => self.structured.end(key, out),
                ProviderDelta::ServerToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    self.drain_detected(out);
                    out.push(RouteEvent::ServerCall {
                        id,
                        name,
                        arguments,
                    });
                }
                ProviderDelta::Usage(usage) => out.push(RouteEvent::Usage { usage }),
                ProviderDelta::Error { kind, .. } => {
                    self.cut |= kind == ErrorKind::Truncated;
                    self.status.push(&delta);
                    self.drain_detected(out);
                    if let ProviderDelta::Error { kind, message } = delta {
                        out.push(RouteEvent::ProviderError { kind, message });
                    }
                }
                // The stop is reported once, by `finish`, after the normalisation rules.
                ProviderDelta::Finish { .. } => self.status.push(&delta),
                other => tracing::debug!(?other, "provider delta the router does not use"),
            }
            self.drain_detected(out);
        }
        drop(iter);
        // Keep the allocation for the next feed.
        self.deltas = deltas;
    }

    fn drain_detected(&mut self, out: &mut Vec<RouteEvent>) {
        for event in self.detected.drain(..) {
            if matches!(event, DetectEvent::CallEnd { .. }) {
                self.n_completed += 1;
            }
            self.cut_text.observe(&event);
            out.push(event.into());
        }
    }
}
