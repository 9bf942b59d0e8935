//! The rmcp client side of one upstream: the `ClientHandler` that receives its
//! notifications, and connecting over stdio or Streamable HTTP.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use process_wrap::tokio::{CommandWrap, ProcessGroup};
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};

use crate::core::without_userinfo_in;
use tokio::io::AsyncBufReadExt;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::config::{HttpTransport, StdioTransport, UpstreamTransport};
use super::error::UpstreamError;

/// How many lines of a child's stderr are kept for error messages.
const STDERR_TAIL_LINES: usize = 8;

/// Receives an upstream's notifications: progress goes to the call that asked
/// for it, `tools/list_changed` wakes the supervisor, log messages go to `tracing`.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamClient {
    server: Arc<str>,
    pub(crate) progress: ProgressDispatcher,
    pub(crate) list_changed: Arc<Notify>,
}

impl UpstreamClient {
    pub(crate) fn new(server: &str) -> Self {
        Self {
            server: server.into(),
            progress: ProgressDispatcher::new(),
            list_changed: Arc::new(Notify::new()),
        }
    }
}

impl ClientHandler for UpstreamClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.handle_notification(params).await;
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }

    // rmcp 3.x marks logging deprecated (SEP-2577); servers still send it.
    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        use rmcp::model::LoggingLevel;
        let server = &self.server;
        let logger = params.logger.as_deref().unwrap_or("");
        let data = &params.data;
        match params.level {
            LoggingLevel::Debug => {
                tracing::debug!(upstream = %server, logger, %data, "upstream log")
            }
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(upstream = %server, logger, %data, "upstream log")
            }
            LoggingLevel::Warning => {
                tracing::warn!(upstream = %server, logger, %data, "upstream log")
            }
            _ => tracing::error!(upstream = %server, logger, %data, "upstream log"),
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("toolrouter", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A live connection and, for stdio, the child's process id.
pub(crate) struct Connected {
    pub(crate) service: RunningService<RoleClient, UpstreamClient>,
    pub(crate) pid: Option<u32>,
}

/// The last lines a child wrote to stderr.
pub(crate) type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// Starts the transport and runs the MCP handshake. Cancelling `ct` closes the
/// connection (and stops the child).
pub(crate) async fn connect(
    server: &str,
    transport: &UpstreamTransport,
    client: UpstreamClient,
    ct: CancellationToken,
    stderr_tail: &StderrTail,
) -> Result<Connected, UpstreamError> {
    match transport {
        UpstreamTransport::Stdio(stdio) => {
            connect_stdio(server, stdio, client, ct, stderr_tail).await
        }
        UpstreamTransport::Http(http) => connect_http(server, http, client, ct).await,
    }
}

async fn connect_stdio(
    server: &str,
    stdio: &StdioTransport,
    client: UpstreamClient,
    ct: CancellationToken,
    stderr_tail: &StderrTail,
) -> Result<Connected, UpstreamError> {
    let mut command = tokio::process::Command::new(&stdio.command);
    command.args(&stdio.args).envs(&stdio.env);
    if let Some(cwd) = &stdio.cwd {
        command.current_dir(cwd);
    }
    let mut wrapped = CommandWrap::from(command);
    // Its own process group, so that stopping it also stops what it spawned
    // (an `npx` wrapper's node process, for example).
    wrapped.wrap(ProcessGroup::leader());
    let (process, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| UpstreamError::Connect {
            server: server.to_owned(),
            reason: format!("cannot start `{}`: {e}", stdio.command),
        })?;
    let pid = process.id();
    if let Some(stderr) = stderr {
        tokio::spawn(relay_stderr(server.to_owned(), stderr, stderr_tail.clone()));
    }
    match client.serve_with_ct(process, ct).await {
        Ok(service) => Ok(Connected { service, pid }),
        Err(e) => {
            // Give the stderr relay a moment to catch the child's last words.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            Err(UpstreamError::Protocol {
                server: server.to_owned(),
                reason: with_stderr(format!("handshake failed: {e}"), stderr_tail),
            })
        }
    }
}

async fn connect_http(
    server: &str,
    http: &HttpTransport,
    client: UpstreamClient,
    ct: CancellationToken,
) -> Result<Connected, UpstreamError> {
    let connect_error = |reason: String| UpstreamError::Connect {
        server: server.to_owned(),
        reason,
    };
    // A restarted server has forgotten the session: start a new one.
    let mut config = StreamableHttpClientTransportConfig::with_uri(http.url.clone())
        .reinit_on_expired_session(true);
    let mut headers = HashMap::new();
    for (name, value) in &http.headers {
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| connect_error(format!("header `{name}`: {e}")))?;
        let value = http::HeaderValue::from_str(value)
            .map_err(|e| connect_error(format!("header `{name}`: {e}")))?;
        headers.insert(name, value);
    }
    if let Some(token) = &http.bearer_token {
        config = config.auth_header(token.clone());
    }
    config = config.custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    match client.serve_with_ct(transport, ct).await {
        Ok(service) => Ok(Connected { service, pid: None }),
        Err(e) => Err(UpstreamError::Protocol {
            server: server.to_owned(),
            // Neither the URL nor the client's error may show a password
            // the URL carries.
            reason: without_userinfo_in(&format!("handshake with {} failed: {e}", http.url))
                .into_owned(),
        }),
    }
}

async fn relay_stderr(server: String, stderr: tokio::process::ChildStderr, tail: StderrTail) {
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(upstream = %server, "stderr: {line}");
        let mut tail = tail
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line.chars().take(500).collect());
    }
}

/// Appends the child's last stderr lines to a message, when there are any.
pub(crate) fn with_stderr(message: String, tail: &StderrTail) -> String {
    let tail = tail
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if tail.is_empty() {
        message
    } else {
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        format!("{message} (stderr: {})", lines.join(" | "))
    }
}
