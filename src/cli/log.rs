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
use tracing::subscriber::Interest;
use tracing::{Level, Metadata};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;
use tracing_subscriber::filter::FilterExt as _;
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
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let layer = match format {
        LogFormat::Text => layer.boxed(),
        LogFormat::Json => layer.json().boxed(),
    };
    tracing_subscriber::registry()
        .with(layer.with_filter(log_filter(levels)))
        .init();
}

/// `levels`, then [`QuietClientErrors`], as one filter: a callsite `levels`
/// turns off stays off for good (a span below the level is never made), where
/// two filters stacked would ask both at every span and event.
fn log_filter<S>(levels: EnvFilter) -> impl Filter<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    let quiet = QuietClientErrors {
        show_client_errors: levels
            .max_level_hint()
            .is_some_and(|max| max >= LevelFilter::DEBUG),
        last_warning: Mutex::new(HashMap::new()),
    };
    levels.and(quiet)
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
    /// Warnings and errors are decided one by one; everything else passes.
    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        if meta.is_event() && *meta.level() <= Level::WARN {
            Interest::sometimes()
        } else {
            Interest::always()
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::TRACE)
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The metadata of the span `make` opens (under a subscriber that takes
    /// everything, so that the span is made).
    fn metadata_of(make: fn() -> tracing::Span) -> &'static Metadata<'static> {
        let everything = tracing_subscriber::registry()
            .with(tracing_subscriber::fmt::layer().with_writer(std::io::sink));
        tracing::subscriber::with_default(everything, || make().metadata())
            .expect("the span is enabled")
    }

    #[test]
    fn a_callsite_below_the_level_is_turned_off_for_good() {
        use tracing_subscriber::Registry;
        let info_span = metadata_of(|| tracing::info_span!("proxy_request"));
        let warn_span = metadata_of(|| tracing::warn_span!("kept"));
        let interest = |levels: &str, meta| {
            Filter::<Registry>::callsite_enabled(
                &log_filter::<Registry>(EnvFilter::new(levels)),
                meta,
            )
        };
        // `never`, not `sometimes`: no span is made, and nothing is asked per span.
        assert!(interest("warn", info_span).is_never());
        assert!(interest("warn", warn_span).is_always());
        assert!(interest("info", info_span).is_always());
    }

    #[test]
    fn a_warning_from_one_place_is_written_at_most_once_a_second() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        /// Counts the lines written.
        #[derive(Clone, Default)]
        struct Lines(Arc<AtomicUsize>);
        impl std::io::Write for Lines {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let newlines = buf.iter().filter(|b| **b == b'\n').count();
                self.0.fetch_add(newlines, Ordering::SeqCst);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = Lines::default();
        let writer = lines.clone();
        let layer = tracing_subscriber::fmt::layer().with_writer(move || writer.clone());
        let subscriber = tracing_subscriber::registry()
            .with(layer.with_filter(log_filter(EnvFilter::new("info"))));
        tracing::subscriber::with_default(subscriber, || {
            for _ in 0..3 {
                tracing::warn!("the same place");
            }
            tracing::warn!("another place");
            tracing::info!("not rate-limited");
            tracing::info!("not rate-limited");
        });
        assert_eq!(lines.0.load(Ordering::SeqCst), 4);
    }
}
