//! The sessions the direct path answers calls for (`SessionTable`), and their
//! idle expiry.
//!
//! A session enters the table when rmcp's answer to its `initialize` names it
//! (`opened`), and learns its server and peer when the client's
//! `notifications/initialized` reaches the server (`initialized`, through the
//! server's session hook). From then on a plain `tools/call` of that session
//! runs on the session's own server (its log level, its subscriptions) with
//! the session's own peer (its client's info), without rmcp's session worker.
//!
//! The table is a sharded map: a call reads one shard and its own session's
//! entry, never a lock over every session. Because direct calls do not pass
//! through rmcp's session worker, whose idle clock only sees what goes through
//! it, the table keeps the idle clock instead: every request that names a
//! session refreshes it, and a sweeper closes sessions (through rmcp's session
//! manager, so rmcp forgets them too) that had no request for the configured
//! time.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use rmcp::model::RequestId;
use rmcp::service::{Peer, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use crate::server::handler::McpServer;

/// The longest wait between two sweeps.
const MAX_SWEEP_INTERVAL: Duration = Duration::from_secs(5);
/// The shortest wait between two sweeps.
const MIN_SWEEP_INTERVAL: Duration = Duration::from_millis(50);

/// The open sessions, by id.
pub(crate) struct SessionTable {
    sessions: DashMap<Arc<str>, Arc<Session>>,
    epoch: Instant,
}

/// One session as the direct path sees it.
pub(crate) struct Session {
    /// Milliseconds from the table's epoch to the session's last request.
    last_request: AtomicU64,
    /// The session's server and peer, once initialized, if its calls may take
    /// the direct path.
    direct: OnceLock<Option<(McpServer, Peer<RoleServer>)>>,
    /// The direct calls running, so that `notifications/cancelled` reaches them.
    in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
}

impl SessionTable {
    pub(crate) fn new() -> Self {
        Self {
            sessions: DashMap::new(),
            epoch: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// rmcp opened session `id`.
    pub(crate) fn opened(&self, id: &str) {
        let now = self.now();
        self.sessions
            .entry(Arc::from(id))
            .or_insert_with(|| Arc::new(Session::new(now)));
    }

    /// Session `id`'s client finished the handshake: its calls run on
    /// `server` with `peer`, unless the client can be asked for something
    /// (sampling, elicitation, roots), whose answers only rmcp's session
    /// worker routes back to the call that asked.
    pub(crate) fn initialized(&self, id: &str, server: &McpServer, peer: &Peer<RoleServer>) {
        let asks = peer.peer_info().is_none_or(|info| {
            let caps = &info.capabilities;
            caps.sampling.is_some() || caps.elicitation.is_some() || caps.roots.is_some()
        });
        let direct = (!asks).then(|| (server.clone(), peer.clone()));
        let now = self.now();
        let session = self
            .sessions
            .entry(Arc::from(id))
            .or_insert_with(|| Arc::new(Session::new(now)))
            .clone();
        let _ = session.direct.set(direct);
    }

    /// The session a request names, its idle clock restarted.
    pub(crate) fn request(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.sessions.get(id)?.clone();
        session.last_request.store(self.now(), Ordering::Relaxed);
        Some(session)
    }

    /// Session `id` was closed by its client.
    pub(crate) fn closed(&self, id: &str) {
        self.sessions.remove(id);
    }

    /// Closes, every so often until `stop`, the sessions idle for `expiry`
    /// (never, when `None`), and forgets those whose service has ended.
    pub(crate) async fn sweep(
        self: Arc<Self>,
        manager: Arc<LocalSessionManager>,
        expiry: Option<Duration>,
        stop: CancellationToken,
    ) {
        let interval = expiry
            .map_or(MAX_SWEEP_INTERVAL, |e| e / 4)
            .clamp(MIN_SWEEP_INTERVAL, MAX_SWEEP_INTERVAL);
        let expiry_ms = expiry.map(|e| u64::try_from(e.as_millis()).unwrap_or(u64::MAX));
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(interval) => {}
            }
            let now = self.now();
            let mut idle = Vec::new();
            self.sessions.retain(|id, session| {
                if session.ended() {
                    return false;
                }
                let last = session.last_request.load(Ordering::Relaxed);
                if expiry_ms.is_some_and(|e| now.saturating_sub(last) >= e) {
                    idle.push(id.clone());
                    return false;
                }
                true
            });
            for id in idle {
                if let Err(e) = manager.close_session(&id.as_ref().into()).await {
                    tracing::debug!(error = %e, "could not close an idle session");
                }
            }
        }
    }
}

impl Session {
    fn new(now: u64) -> Self {
        Self {
            last_request: AtomicU64::new(now),
            direct: OnceLock::new(),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// The server and peer a direct call of this session runs with, if its
    /// calls may take the direct path and the session is still served.
    pub(crate) fn direct(&self) -> Option<(McpServer, Peer<RoleServer>)> {
        let (server, peer) = self.direct.get()?.as_ref()?;
        (!peer.is_transport_closed()).then(|| (server.clone(), peer.clone()))
    }

    /// Whether the session's service has ended.
    fn ended(&self) -> bool {
        matches!(self.direct.get(), Some(Some((_, peer))) if peer.is_transport_closed())
    }

    /// Registers call `id`, cancelled by `ct`; the guard forgets it.
    pub(crate) fn start_call(self: &Arc<Self>, id: RequestId, ct: CancellationToken) -> InFlight {
        self.calls().insert(id.clone(), ct);
        InFlight {
            session: self.clone(),
            id,
        }
    }

    /// Cancels direct call `id` if it is running.
    pub(crate) fn cancel(&self, id: &RequestId) {
        if let Some(ct) = self.calls().remove(id) {
            ct.cancel();
        }
    }

    fn calls(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, CancellationToken>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A direct call of a session, registered while it runs.
pub(crate) struct InFlight {
    session: Arc<Session>,
    id: RequestId,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.session.calls().remove(&self.id);
    }
}

/// The `requestId` of a `notifications/cancelled` body, if it is one.
pub(crate) fn cancelled_request(body: &[u8]) -> Option<RequestId> {
    memchr::memmem::find(body, b"notifications/cancelled")?;
    #[derive(serde::Deserialize)]
    struct Notification {
        method: String,
        params: Params,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Params {
        request_id: RequestId,
    }
    let notification: Notification = serde_json::from_slice(body).ok()?;
    (notification.method == "notifications/cancelled").then_some(notification.params.request_id)
}
