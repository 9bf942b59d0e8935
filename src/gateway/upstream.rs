//! `UpstreamShared`: one upstream's state, shared by its supervisor, its
//! forwarding handlers and the `Gateway` handle (the live connection, the state
//! and tools it reports, and the registry entries it owns).

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::{Peer, RoleClient};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::admit::Admitted;
use super::client::StderrTail;
use super::config::{GatewaySettings, UpstreamConfig};
use super::status::{UpstreamIssue, UpstreamState, UpstreamStatus, UpstreamTool};
use crate::registry::{RegistryError, ToolRegistry, ToolSource};

/// A live connection, as forwarding handlers use it.
pub(crate) struct Live {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) progress: ProgressDispatcher,
    /// Cancelled when this connection ends: in-flight calls fail at once.
    pub(crate) closed: CancellationToken,
}

#[derive(Debug)]
struct Inner {
    state: UpstreamState,
    pid: Option<u32>,
    /// Registry name -> upstream name, of the tools this upstream registered.
    tools: BTreeMap<String, String>,
    advertised: HashSet<String>,
    issues: Vec<UpstreamIssue>,
    connections: u32,
}

/// One upstream's state, shared by its supervisor, its handlers and the gateway.
pub(crate) struct UpstreamShared {
    pub(super) config: UpstreamConfig,
    pub(super) settings: Arc<GatewaySettings>,
    registry: Arc<ToolRegistry>,
    live: RwLock<Option<Arc<Live>>>,
    inner: Mutex<Inner>,
    changes: watch::Sender<u64>,
    pub(super) stderr_tail: StderrTail,
    /// Woken by a handler whose call failed at the transport level: the
    /// supervisor then checks the connection with a ping.
    pub(super) suspect: Notify,
}

impl UpstreamShared {
    pub(crate) fn new(
        config: UpstreamConfig,
        settings: Arc<GatewaySettings>,
        registry: Arc<ToolRegistry>,
        changes: watch::Sender<u64>,
    ) -> Arc<Self> {
        Arc::new(Self {
            config,
            settings,
            registry,
            live: RwLock::new(None),
            inner: Mutex::new(Inner {
                state: UpstreamState::Connecting,
                pid: None,
                tools: BTreeMap::new(),
                advertised: HashSet::new(),
                issues: Vec::new(),
                connections: 0,
            }),
            changes,
            stderr_tail: StderrTail::default(),
            suspect: Notify::new(),
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.config.name
    }

    pub(crate) fn live(&self) -> Option<Arc<Live>> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Reports a transport failure seen by a call.
    pub(crate) fn suspect(&self) {
        self.suspect.notify_one();
    }

    pub(crate) fn state(&self) -> UpstreamState {
        self.lock().state.clone()
    }

    pub(crate) fn advertises(&self, upstream_name: &str) -> bool {
        self.lock().advertised.contains(upstream_name)
    }

    pub(crate) fn status(&self) -> UpstreamStatus {
        let inner = self.lock();
        UpstreamStatus {
            name: self.config.name.clone(),
            state: inner.state.clone(),
            pid: inner.pid,
            tools: inner
                .tools
                .iter()
                .map(|(public, real)| UpstreamTool {
                    public_name: public.clone(),
                    upstream_name: real.clone(),
                })
                .collect(),
            issues: inner.issues.clone(),
            connections: inner.connections,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn set_live(&self, live: Option<Arc<Live>>) {
        let previous = std::mem::replace(
            &mut *self.live.write().unwrap_or_else(PoisonError::into_inner),
            live,
        );
        if let Some(previous) = previous {
            previous.closed.cancel();
        }
    }

    pub(super) fn set_state(&self, state: UpstreamState, pid: Option<u32>) {
        {
            let mut inner = self.lock();
            match &state {
                UpstreamState::Refused(why) => {
                    tracing::error!(upstream = %self.config.name, "refused: {why}")
                }
                UpstreamState::Restarting { last_error, .. } => {
                    tracing::warn!(upstream = %self.config.name, "restarting: {last_error}")
                }
                other => {
                    tracing::info!(upstream = %self.config.name, state = %other, "upstream state")
                }
            }
            if state == UpstreamState::Ready {
                inner.connections += 1;
            }
            inner.state = state;
            inner.pid = pid;
        }
        self.changes.send_modify(|v| *v += 1);
    }

    /// Makes the registry hold exactly `admitted` for this upstream: adds new
    /// tools, replaces changed ones, removes ones no longer listed. A name held by
    /// another source is reported, never taken over.
    pub(super) fn apply_tools(&self, admitted: Vec<Admitted>, mut issues: Vec<UpstreamIssue>) {
        let own_source = ToolSource::Upstream(self.config.name.clone());
        let mut inner = self.lock();
        let mut fresh = BTreeMap::new();
        for Admitted {
            upstream_name,
            tool,
        } in admitted
        {
            let public = tool.name().to_owned();
            let ours_before = inner.tools.contains_key(&public);
            let outcome = match self.registry.get(&public) {
                Some(existing) if ours_before && existing.source() == &own_source => {
                    if existing.definition() != tool.definition() {
                        self.registry.insert(tool);
                    }
                    Ok(())
                }
                Some(existing) => Err(existing.source().clone()),
                None => match self.registry.insert_new(tool) {
                    Ok(()) => Ok(()),
                    Err(RegistryError::Duplicate(_)) => Err(self
                        .registry
                        .get(&public)
                        .map(|t| t.source().clone())
                        .unwrap_or(ToolSource::Local)),
                    Err(e) => {
                        tracing::error!(upstream = %self.config.name, "cannot register `{public}`: {e}");
                        continue;
                    }
                },
            };
            match outcome {
                Ok(()) => {
                    fresh.insert(public, upstream_name);
                }
                Err(holder) => {
                    let issue = UpstreamIssue::NameCollision {
                        public_name: public,
                        upstream_tool: upstream_name,
                        holder,
                    };
                    tracing::warn!(upstream = %self.config.name, "{issue}");
                    issues.push(issue);
                }
            }
        }
        let stale: Vec<String> = inner
            .tools
            .keys()
            .filter(|public| !fresh.contains_key(*public))
            .cloned()
            .collect();
        for public in stale {
            self.remove_if_ours(&public);
        }
        inner.advertised = fresh.values().cloned().collect();
        inner.tools = fresh;
        inner.issues = issues;
        drop(inner);
        self.changes.send_modify(|v| *v += 1);
    }

    pub(super) fn remove_all_tools(&self) {
        let mut inner = self.lock();
        let tools = std::mem::take(&mut inner.tools);
        inner.advertised.clear();
        for public in tools.keys() {
            self.remove_if_ours(public);
        }
    }

    fn remove_if_ours(&self, public: &str) {
        let ours = self
            .registry
            .get(public)
            .is_some_and(|t| t.source() == &ToolSource::Upstream(self.config.name.clone()));
        if ours {
            self.registry.remove(public);
        }
    }
}
