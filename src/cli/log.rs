//! The command line's log: `TOOLROUTER_LOG` (default `warn`) on stderr, with
//! what a client can cause kept quiet. rmcp warns about every JSON-RPC error
//! it answers in a session (an unknown tool, a bad parameter), so a client
//! could fill the log; those warnings show only with debug logging on. Every
//! other warning or error is rate-limited: at most one a second from each
//! place in the code.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tracing::callsite::Identifier;
use tracing::level_filters::LevelFilter;
use tracing::{Level, Metadata};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::{Context, Filter, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

/// The least time between two warnings from one place in the code.
const WARNING_INTERVAL: Duration = Duration::from_secs(1);

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line: `timestamp`, `level`, `fields`, `target`,
    /// `span` and `spans` (the fields of the spans it was written in).
    Json,
}

/// Installs the log for the process.
pub(crate) fn init(format: LogFormat) {
    let levels =
        EnvFilter::try_from_env("TOOLROUTER_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let quiet = QuietClientErrors {
        show_client_errors: levels
            .max_level_hint()
            .is_some_and(|max| max >= LevelFilter::DEBUG),
        last_warning: Mutex::new(HashMap::new()),
    };
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let layer = match format {
        LogFormat::Text => layer.boxed(),
        LogFormat::Json => layer.json().boxed(),
    };
    tracing_subscriber::registry()
        .with(layer.with_filter(levels).with_filter(quiet))
        .init();
}

/// Holds back client-caused warnings and rate-limits the other warnings.
struct QuietClientErrors {
    show_client_errors: bool,
    last_warning: Mutex<HashMap<Identifier, Instant>>,
}

/// rmcp's warnings about one request's answer (they carry its `id`): an
/// error answered to the client, a request refused, an answer the client
/// left before it was sent.
fn is_client_error(meta: &Metadata<'_>) -> bool {
    meta.target() == "rmcp::service"
        && *meta.level() == Level::WARN
        && meta.fields().field("id").is_some()
}

impl<S> Filter<S> for QuietClientErrors {
    fn enabled(&self, meta: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        if !meta.is_event() || *meta.level() > Level::WARN {
            return true;
        }
        if is_client_error(meta) {
            return self.show_client_errors;
        }
        let now = Instant::now();
        let mut last = self
            .last_warning
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match last.get(&meta.callsite()) {
            Some(at) if now.duration_since(*at) < WARNING_INTERVAL => false,
            _ => {
                last.insert(meta.callsite(), now);
                true
            }
        }
    }
}

/// Writes one status line to stderr. A long-running server must not die when
/// whoever started it stops reading its stderr (a closed pipe): `eprintln!`
/// panics on a failed write, this drops the line instead.
pub(crate) fn status(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "toolrouter: {line}");
}
