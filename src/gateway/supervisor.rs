//! The life of one upstream: connect, register its tools, refresh them on
//! `tools/list_changed`, notice its death, reconnect with backoff, stop it.
//!
//! `supervise` is the task that owns the connection; what the upstream's
//! `ForwardingHandler`s and the `Gateway` handle see of it is `UpstreamShared`
//! (`upstream.rs`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{ClientRequest, PaginatedRequestParams, Tool};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use tokio::sync::Notify;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::admit::{AdmitRules, Admitted, admit_tools};
use super::client::{Connected, UpstreamClient, connect, with_stderr};
use super::error::UpstreamError;
use super::forward::ForwardingHandler;
use super::status::{UpstreamIssue, UpstreamState};
use super::upstream::{Live, UpstreamShared};
use crate::registry::ToolHandler;

/// How long a closing connection may take before the supervisor moves on (the
/// child is killed when its transport is dropped).
const CLOSE_GRACE: Duration = Duration::from_secs(10);
/// A connection that lasted this long resets the restart backoff.
const STABLE_AFTER: Duration = Duration::from_secs(10);
/// The most `tools/list` pages read from one upstream.
const MAX_PAGES: usize = 100;

/// How a connection ended.
enum Ended {
    Shutdown,
    Died,
    Refused(UpstreamError),
}

/// Checks a `tools/list` answer and gives each admitted tool a forwarding
/// handler of this upstream.
fn admit(
    shared: &Arc<UpstreamShared>,
    tools: Vec<Tool>,
) -> Result<(Vec<Admitted>, Vec<UpstreamIssue>), UpstreamError> {
    let prefix = shared.config.effective_prefix(&shared.settings.naming);
    let rules = AdmitRules {
        server: &shared.config.name,
        prefix: prefix.as_deref(),
        separator: &shared.settings.naming.separator,
        max_tools: shared.settings.max_tools_per_upstream,
        max_description_chars: shared.settings.max_description_chars,
        timeout: shared.config.timeout.or(shared.settings.timeout),
    };
    admit_tools(&rules, tools, |real| {
        Arc::new(ForwardingHandler::new(shared.clone(), real)) as Arc<dyn ToolHandler>
    })
}

/// Runs one upstream until `shutdown` is cancelled. Its state leaves
/// `Connecting` when the first connection attempt has finished, whatever its
/// outcome.
pub(crate) async fn supervise(shared: Arc<UpstreamShared>, shutdown: CancellationToken) {
    let connect_timeout = shared
        .config
        .connect_timeout
        .unwrap_or(shared.settings.connect_timeout);
    let mut attempt: u32 = 0;
    loop {
        let ct = shutdown.child_token();
        let client = UpstreamClient::new(shared.name());
        let list_changed = client.list_changed.clone();
        let progress = client.progress.clone();
        let connecting = connect_and_list(&shared, client, ct.clone());
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(connect_timeout, connecting) => outcome,
            _ = shutdown.cancelled() => {
                finish(&shared, UpstreamState::Stopped);
                return;
            }
        };
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(_elapsed) => Err(UpstreamError::Connect {
                server: shared.name().to_owned(),
                reason: format!(
                    "no answer within {connect_timeout:?} (set `connect_timeout_secs` to wait longer)"
                ),
            }),
        };
        let end = match outcome {
            Ok((connected, tools)) => match admit(&shared, tools) {
                Ok((admitted, issues)) => {
                    let connected_at = Instant::now();
                    let closed = CancellationToken::new();
                    shared.set_live(Some(Arc::new(Live {
                        peer: connected.service.peer().clone(),
                        progress,
                        closed: closed.clone(),
                    })));
                    shared.apply_tools(admitted, issues);
                    shared.set_state(UpstreamState::Ready, connected.pid);
                    let end = run_connected(&shared, connected, ct, list_changed, &shutdown).await;
                    // A server that dies soon after starting is crash-looping:
                    // keep backing off instead of restarting at full speed.
                    if connected_at.elapsed() >= STABLE_AFTER {
                        attempt = 0;
                    } else {
                        attempt = attempt.saturating_add(1);
                    }
                    end
                }
                Err(refusal) => {
                    ct.cancel();
                    Ended::Refused(refusal)
                }
            },
            Err(e) if e.is_refusal() => {
                ct.cancel();
                Ended::Refused(e)
            }
            Err(e) => {
                ct.cancel();
                // The retry failed: its tools are unreachable until it is back.
                shared.remove_all_tools();
                attempt = attempt.saturating_add(1);
                shared.set_state(
                    UpstreamState::Restarting {
                        attempt,
                        last_error: e.to_string(),
                    },
                    None,
                );
                Ended::Died
            }
        };
        match end {
            Ended::Shutdown => {
                finish(&shared, UpstreamState::Stopped);
                return;
            }
            Ended::Refused(e) => {
                finish(&shared, UpstreamState::Refused(e.to_string()));
                return;
            }
            Ended::Died => {}
        }
        let delay = shared.settings.restart.delay(attempt.saturating_sub(1));
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = shutdown.cancelled() => {
                finish(&shared, UpstreamState::Stopped);
                return;
            }
        }
    }
}

fn finish(shared: &UpstreamShared, state: UpstreamState) {
    shared.set_live(None);
    shared.remove_all_tools();
    shared.set_state(state, None);
}

async fn connect_and_list(
    shared: &Arc<UpstreamShared>,
    client: UpstreamClient,
    ct: CancellationToken,
) -> Result<(Connected, Vec<Tool>), UpstreamError> {
    let connected = connect(
        shared.name(),
        &shared.config.transport,
        client,
        ct,
        &shared.stderr_tail,
    )
    .await?;
    let tools = list_tools(shared, connected.service.peer()).await?;
    Ok((connected, tools))
}

/// Every page of the upstream's `tools/list`. The list is untrusted: more tools
/// than the limit, too many pages or a repeated cursor make it malformed (so a
/// server cannot keep the gateway paging forever).
async fn list_tools(
    shared: &UpstreamShared,
    peer: &Peer<RoleClient>,
) -> Result<Vec<Tool>, UpstreamError> {
    let malformed = |reason: String| UpstreamError::MalformedToolList {
        server: shared.name().to_owned(),
        reason,
    };
    let max_tools = shared.settings.max_tools_per_upstream;
    let mut tools = Vec::new();
    let mut cursors = HashSet::new();
    let mut cursor = None;
    for _page in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = match peer.list_tools(Some(params)).await {
            Ok(page) => page,
            // An answer that does not parse as a tools list.
            Err(ServiceError::UnexpectedResponse) => {
                return Err(malformed(
                    "the tools/list result does not match the MCP schema (every tool needs a `name` and an object `inputSchema`)".to_owned(),
                ));
            }
            Err(e) => {
                return Err(UpstreamError::Protocol {
                    server: shared.name().to_owned(),
                    reason: with_stderr(format!("tools/list failed: {e}"), &shared.stderr_tail),
                });
            }
        };
        tools.extend(page.tools);
        if tools.len() > max_tools {
            return Err(malformed(format!(
                "more than the limit of {max_tools} tools advertised"
            )));
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) if !cursors.insert(next.clone()) => {
                return Err(malformed(format!("the cursor `{next}` came back twice")));
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(malformed(format!("more than {MAX_PAGES} pages")))
}

async fn run_connected(
    shared: &Arc<UpstreamShared>,
    connected: Connected,
    ct: CancellationToken,
    list_changed: Arc<Notify>,
    shutdown: &CancellationToken,
) -> Ended {
    let peer = connected.service.peer().clone();
    let waiting = connected.service.waiting();
    tokio::pin!(waiting);
    let every = shared
        .config
        .ping_interval
        .unwrap_or(shared.settings.ping_interval);
    let mut pings = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        let check = tokio::select! {
            _ = shutdown.cancelled() => {
                shared.set_live(None);
                ct.cancel();
                let _ = tokio::time::timeout(CLOSE_GRACE, &mut waiting).await;
                return Ended::Shutdown;
            }
            quit = &mut waiting => return died(shared, quit),
            // A call failed at the transport or its caller stopped waiting:
            // over HTTP the connection outlives a dead server, and a frozen
            // one never closes it; a ping tells.
            _ = shared.suspect.notified() => true,
            _ = pings.tick() => true,
            _ = list_changed.notified() => {
                // A slow refresh must not hold up shutdown or death detection.
                let listed = tokio::select! {
                    listed = tokio::time::timeout(
                        shared.settings.connect_timeout,
                        list_tools(shared, &peer),
                    ) => listed,
                    _ = shutdown.cancelled() => continue,
                    quit = &mut waiting => return died(shared, quit),
                };
                let refusal = match listed {
                    Ok(Ok(tools)) => match admit(shared, tools) {
                        Ok((admitted, issues)) => {
                            shared.apply_tools(admitted, issues);
                            None
                        }
                        Err(e) => Some(e),
                    },
                    Ok(Err(e)) if e.is_refusal() => Some(e),
                    Ok(Err(e)) => {
                        tracing::warn!(upstream = %shared.name(), "refresh after list_changed failed: {e}");
                        None
                    }
                    Err(_elapsed) => {
                        tracing::warn!(upstream = %shared.name(), "refresh after list_changed timed out");
                        None
                    }
                };
                if let Some(refusal) = refusal {
                    shared.set_live(None);
                    ct.cancel();
                    let _ = tokio::time::timeout(CLOSE_GRACE, &mut waiting).await;
                    return Ended::Refused(refusal);
                }
                false
            }
        };
        if !check {
            continue;
        }
        let timeout = shared.settings.ping_timeout;
        let alive = tokio::select! {
            alive = answers_ping(&peer, timeout) => alive,
            // Handled at the top of the loop.
            _ = shutdown.cancelled() => continue,
            quit = &mut waiting => return died(shared, quit),
        };
        if !alive {
            shared.set_live(None);
            ct.cancel();
            let _ = tokio::time::timeout(CLOSE_GRACE, &mut waiting).await;
            let reason = with_stderr(
                format!("the upstream did not answer a ping within {timeout:?}"),
                &shared.stderr_tail,
            );
            shared.set_state(
                UpstreamState::Restarting {
                    attempt: 0,
                    last_error: reason,
                },
                None,
            );
            return Ended::Died;
        }
    }
}

/// Whether the upstream answers a ping within `timeout` (an error answer is
/// an answer).
async fn answers_ping(peer: &Peer<RoleClient>, timeout: Duration) -> bool {
    let ping = peer.send_request(ClientRequest::PingRequest(Default::default()));
    matches!(
        tokio::time::timeout(timeout, ping).await,
        Ok(Ok(_)) | Ok(Err(ServiceError::McpError(_)))
    )
}

/// Records that the connection ended by itself; in-flight calls fail at once.
fn died(
    shared: &UpstreamShared,
    quit: Result<rmcp::service::QuitReason, tokio::task::JoinError>,
) -> Ended {
    shared.set_live(None);
    let reason = match quit {
        Ok(reason) => format!("the connection ended ({reason:?})"),
        Err(e) => format!("the connection task failed: {e}"),
    };
    let reason = with_stderr(reason, &shared.stderr_tail);
    shared.set_state(
        UpstreamState::Restarting {
            attempt: 0,
            last_error: reason,
        },
        None,
    );
    Ended::Died
}
