//! The relay to rmcp's service: the transport it runs on, and the count of
//! the requests it has read and not yet answered.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncWrite, DuplexStream};

/// Encoded output lines, each ending in `\n`.
use super::{LineSender, encode};

/// The requests rmcp's loop has read and not answered yet (by id, with how
/// many are in flight under it), so that the reader can wait for their
/// replies before it closes the relay. Once the input has ended, the reader
/// relays a last line of its own, a cancellation of a request id no client
/// uses ([`end_line`](Self::end_line)): rmcp has read every line before it
/// when it reads that one, which never reaches rmcp's service.
#[derive(Debug)]
pub(super) struct RelayedRequests {
    state: Mutex<Relayed>,
    changed: tokio::sync::Notify,
    end_id: RequestId,
}

#[derive(Debug, Default)]
struct Relayed {
    in_flight: HashMap<RequestId, usize>,
    /// rmcp has read the end line.
    ended: bool,
}

impl RelayedRequests {
    pub(super) fn new() -> Self {
        Self {
            state: Mutex::new(Relayed::default()),
            changed: tokio::sync::Notify::new(),
            end_id: RequestId::String(
                format!("toolrouter/input-ended/{}", uuid::Uuid::new_v4()).into(),
            ),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Relayed> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The line that follows the last one relayed.
    pub(super) fn end_line(&self) -> Vec<u8> {
        let mut line = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": self.end_id, "reason": "the input ended" },
        })
        .to_string()
        .into_bytes();
        line.push(b'\n');
        line
    }

    /// Notes a message rmcp's transport read; `false` for the end line, which
    /// is not handed on.
    fn read(&self, message: &ClientJsonRpcMessage) -> bool {
        match message {
            JsonRpcMessage::Request(request) => {
                *self.lock().in_flight.entry(request.id.clone()).or_default() += 1;
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    if *id == self.end_id {
                        self.lock().ended = true;
                        self.changed.notify_waiters();
                        return false;
                    }
                    // rmcp sends no reply to a request it cancels.
                    self.done(id);
                }
            }
            _ => {}
        }
        true
    }

    /// A reply to `id` was sent, or the request was cancelled.
    fn done(&self, id: &RequestId) {
        let mut state = self.lock();
        if let Some(count) = state.in_flight.get_mut(id) {
            *count -= 1;
            if *count == 0 {
                state.in_flight.remove(id);
                if state.in_flight.is_empty() {
                    self.changed.notify_waiters();
                }
            }
        }
    }

    /// Resolves once rmcp has read the end line and answered every request
    /// before it.
    pub(super) async fn answered(&self) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let state = self.lock();
                if state.ended && state.in_flight.is_empty() {
                    return;
                }
            }
            changed.await;
        }
    }
}

/// The transport the rmcp service runs on: reads relayed lines with rmcp's own
/// `AsyncRwTransport` (its parsing and compatibility rules), and queues what
/// rmcp sends on the shared writer. It keeps count of the requests rmcp is
/// answering.
pub(super) struct RelayTransport {
    inner: AsyncRwTransport<RoleServer, DuplexStream, LineSink>,
    out: LineSender,
    relayed: Arc<RelayedRequests>,
}

impl RelayTransport {
    pub(super) fn new(input: DuplexStream, out: LineSender, relayed: Arc<RelayedRequests>) -> Self {
        Self {
            inner: AsyncRwTransport::new(input, LineSink::new(out.clone())),
            out,
            relayed,
        }
    }
}

impl Transport<RoleServer> for RelayTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Queued now, in the order rmcp sends, before the sender is told.
        let queued = encode(&item).and_then(|line| {
            self.out
                .send(line)
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "output closed"))
        });
        match &item {
            JsonRpcMessage::Response(response) => self.relayed.done(&response.id),
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.relayed.done(id);
                }
            }
            _ => {}
        }
        std::future::ready(queued)
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        let relayed = &self.relayed;
        let inner = &mut self.inner;
        async move {
            loop {
                let message = Transport::<RoleServer>::receive(inner).await?;
                if relayed.read(&message) {
                    return Some(message);
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        Transport::<RoleServer>::close(&mut self.inner)
    }
}

/// Where rmcp's `AsyncRwTransport` writes the replies it makes itself (an
/// `Invalid Request` error for a message of the wrong shape): whole lines onto
/// the shared writer.
pub(super) struct LineSink {
    partial: Vec<u8>,
    out: LineSender,
}

impl LineSink {
    fn new(out: LineSender) -> Self {
        Self {
            partial: Vec::new(),
            out,
        }
    }
}

impl AsyncWrite for LineSink {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let mut rest = buf;
        while let Some(pos) = memchr::memchr(b'\n', rest) {
            let (head, tail) = rest.split_at(pos + 1);
            let mut line = std::mem::take(&mut this.partial);
            line.extend_from_slice(head);
            if this.out.send(line).is_err() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "output closed",
                )));
            }
            rest = tail;
        }
        this.partial.extend_from_slice(rest);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
