//! `ListGate`: holds `tools/list` answers while the tool list is still
//! being completed (upstream servers making their first connection), never
//! longer than a bound. Everything else is served at once.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

/// A gate the server's `tools/list` answers wait at until it opens. Cheap to
/// clone; clones share the gate. Once open it stays open, and waiting costs a
/// flag check.
#[derive(Debug, Clone)]
pub struct ListGate {
    open: watch::Receiver<bool>,
}

impl ListGate {
    /// A gate that opens when `ready` completes or `max` has passed,
    /// whichever comes first. Must be called within a Tokio runtime.
    pub fn until(ready: impl Future<Output = ()> + Send + 'static, max: Duration) -> Self {
        let (opener, open) = watch::channel(false);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(max, ready).await;
            let _ = opener.send(true);
        });
        Self { open }
    }

    /// Whether the gate has opened.
    pub fn is_open(&self) -> bool {
        *self.open.borrow()
    }

    /// Returns once the gate is open (at once if its task is gone).
    pub(crate) async fn wait(&self) {
        if self.is_open() {
            return;
        }
        let mut open = self.open.clone();
        let _ = open.wait_for(|open| *open).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_when_ready_or_at_the_bound() {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let gate = ListGate::until(
            async move {
                let _ = rx.await;
            },
            Duration::from_secs(3600),
        );
        assert!(!gate.is_open());
        tx.send(()).expect("send");
        tokio::time::timeout(Duration::from_secs(60), gate.wait())
            .await
            .expect("opened when ready");
        assert!(gate.is_open());

        let never = ListGate::until(std::future::pending(), Duration::from_millis(10));
        tokio::time::timeout(Duration::from_secs(60), never.wait())
            .await
            .expect("opened at the bound");
    }
}
