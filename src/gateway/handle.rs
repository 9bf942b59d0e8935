//! `Gateway`: starts one supervisor per configured upstream over a shared
//! registry, reports their state, and shuts them down.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::config::{GatewayConfig, UpstreamConfig};
use super::status::{UpstreamState, UpstreamStatus};
use super::supervisor::supervise;
use super::upstream::UpstreamShared;
use crate::registry::ToolRegistry;

/// The running upstreams of one configuration. Cheap to clone; clones share
/// state. Dropping the last clone stops every upstream (their child processes
/// are killed); call [`Gateway::shutdown`] to stop them gracefully and wait.
#[derive(Clone)]
pub struct Gateway {
    inner: Arc<GatewayInner>,
}

struct GatewayInner {
    upstreams: Vec<Arc<UpstreamShared>>,
    refused: Vec<UpstreamStatus>,
    shutdown: CancellationToken,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    changes: watch::Sender<u64>,
}

impl Drop for GatewayInner {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("upstreams", &self.status())
            .finish()
    }
}

impl Gateway {
    /// Starts every upstream of `config`, registering their tools in `registry`,
    /// and returns once each has finished its first connection attempt (bounded
    /// by the connect timeout). Upstreams that failed keep retrying in the
    /// background; refused ones stay refused. Look at [`Gateway::status`].
    ///
    /// For callers that need the whole tool list before they begin (declaring
    /// tools to a model). A server uses [`Gateway::spawn`].
    ///
    /// Must be called within a Tokio runtime.
    pub async fn start(config: &GatewayConfig, registry: Arc<ToolRegistry>) -> Gateway {
        let gateway = Gateway::spawn(config, registry);
        gateway.first_attempts().await;
        gateway
    }

    /// Starts every upstream of `config` in the background and returns at
    /// once: each upstream's tools join `registry` when it connects (the
    /// registry's subscribers, such as an MCP server's `tools/list_changed`,
    /// see them arrive), so one slow or silent upstream holds nothing up.
    ///
    /// Must be called within a Tokio runtime.
    pub fn spawn(config: &GatewayConfig, registry: Arc<ToolRegistry>) -> Gateway {
        let settings = Arc::new(config.settings.clone());
        let (changes, _) = watch::channel(0u64);
        let shutdown = CancellationToken::new();
        let mut upstreams = Vec::new();
        let mut refused = Vec::new();
        let mut tasks = Vec::new();
        let mut names = HashSet::new();
        for upstream in &config.upstreams {
            if !names.insert(upstream.name.clone()) {
                refused.push(duplicate_status(upstream));
                continue;
            }
            let shared = UpstreamShared::new(
                upstream.clone(),
                settings.clone(),
                registry.clone(),
                changes.clone(),
            );
            tasks.push(tokio::spawn(supervise(
                shared.clone(),
                shutdown.child_token(),
            )));
            upstreams.push(shared);
        }
        Gateway {
            inner: Arc::new(GatewayInner {
                upstreams,
                refused,
                shutdown,
                tasks: Mutex::new(tasks),
                changes,
            }),
        }
    }

    /// Returns once every upstream has finished its first connection attempt
    /// (connected, failed and retrying, refused or stopped).
    pub async fn first_attempts(&self) {
        self.wait_until(|all| all.iter().all(|u| u.state != UpstreamState::Connecting))
            .await;
    }

    /// A snapshot of every upstream, in configuration order.
    pub fn status(&self) -> Vec<UpstreamStatus> {
        self.inner
            .upstreams
            .iter()
            .map(|u| u.status())
            .chain(self.inner.refused.iter().cloned())
            .collect()
    }

    /// A snapshot of one upstream.
    pub fn upstream(&self, name: &str) -> Option<UpstreamStatus> {
        self.status().into_iter().find(|s| s.name == name)
    }

    /// A receiver that sees a new value whenever an upstream's state or tools change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changes.subscribe()
    }

    /// Waits until `done` holds for the upstreams' status (checked now and after
    /// every change). Wrap it in a timeout.
    pub async fn wait_until(&self, mut done: impl FnMut(&[UpstreamStatus]) -> bool) {
        let mut changes = self.subscribe();
        loop {
            changes.borrow_and_update();
            if done(&self.status()) {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Stops every upstream: closes the connections, stops child processes
    /// (stdin closed, then `SIGTERM`, then kill) and removes their tools from
    /// the registry. Returns when all are stopped.
    pub async fn shutdown(&self) {
        self.inner.shutdown.cancel();
        let tasks = std::mem::take(
            &mut *self
                .inner
                .tasks
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for task in tasks {
            if let Err(e) = task.await {
                tracing::error!("an upstream supervisor failed: {e}");
            }
        }
    }
}

fn duplicate_status(upstream: &UpstreamConfig) -> UpstreamStatus {
    UpstreamStatus {
        name: upstream.name.clone(),
        state: UpstreamState::Refused(format!(
            "another upstream is already named `{}`",
            upstream.name
        )),
        pid: None,
        tools: Vec::new(),
        issues: Vec::new(),
        connections: 0,
    }
}
