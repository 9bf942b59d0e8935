//! A rate limit for repeated warnings: at most one report per interval, with
//! the number of events since the last report.

use std::time::Duration;

use tokio::time::Instant;

/// The least time between two reports.
const REPORT_INTERVAL: Duration = Duration::from_secs(5);

/// Counts events and says when one should be reported.
#[derive(Debug)]
pub(crate) struct RateLimitedLog {
    last_report: Option<Instant>,
    unreported: u64,
}

impl RateLimitedLog {
    pub(crate) fn new() -> Self {
        Self {
            last_report: None,
            unreported: 0,
        }
    }

    /// Records an event; returns the count to report (this one included)
    /// when a report is due.
    pub(crate) fn record(&mut self) -> Option<u64> {
        self.unreported += 1;
        let now = Instant::now();
        if self
            .last_report
            .is_some_and(|last| now.duration_since(last) < REPORT_INTERVAL)
        {
            return None;
        }
        self.last_report = Some(now);
        Some(std::mem::take(&mut self.unreported))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reports_the_first_event_then_counts_until_the_interval_passes() {
        let mut log = RateLimitedLog::new();
        assert_eq!(log.record(), Some(1));
        assert_eq!(log.record(), None);
        assert_eq!(log.record(), None);
        log.last_report = Instant::now().checked_sub(REPORT_INTERVAL);
        assert_eq!(log.record(), Some(3));
    }
}
