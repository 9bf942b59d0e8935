//! `release`: lets go of a byte stream whose turn ended at the wire's end
//! marker, without anyone waiting for the stream's own end.
//!
//! What the upstream still sends is read and dropped in the background, for
//! at most [`RELEASE_GRACE`] and [`MAX_RELEASE_BYTES`]: an HTTP body read to
//! its end is what lets a client put its kept-alive connection back in its
//! pool (hyper's, reqwest's, the proxy's own). A stream that does not end by
//! then is dropped, which closes its connection: an upstream that keeps it
//! open past its answer costs a connection, not a wait.

use std::time::Duration;

use futures::{FutureExt, Stream, StreamExt};

/// How long a stream let go may take to end (a well-behaved upstream ends
/// its body with its answer).
const RELEASE_GRACE: Duration = Duration::from_secs(1);

/// The most bytes of a stream let go that are read and dropped.
const MAX_RELEASE_BYTES: usize = 64 * 1024;

/// Reads what is left of `stream` in the background, at most
/// [`MAX_RELEASE_BYTES`] for at most [`RELEASE_GRACE`], then drops it.
/// Outside a Tokio runtime it is dropped at once.
pub(crate) fn release<S, B, E>(stream: S)
where
    S: Stream<Item = Result<B, E>> + Unpin + Send + 'static,
    B: AsRef<[u8]> + 'static,
{
    release_sized(stream, |chunk: &B| chunk.as_ref().len());
}

/// [`release`] for a stream of items of any kind, each `size(item)` bytes.
pub(crate) fn release_sized<S, I: 'static, E>(mut stream: S, size: fn(&I) -> usize)
where
    S: Stream<Item = Result<I, E>> + Unpin + Send + 'static,
{
    let mut budget = MAX_RELEASE_BYTES;
    // What has come already needs no task.
    loop {
        match stream.next().now_or_never() {
            Some(Some(Ok(chunk))) if size(&chunk) < budget => {
                budget -= size(&chunk);
            }
            Some(_) => return,
            None => break,
        }
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        let drain = async {
            while let Some(Ok(chunk)) = stream.next().await {
                let n = size(&chunk);
                if n >= budget {
                    return;
                }
                budget -= n;
            }
        };
        let _ = tokio::time::timeout(RELEASE_GRACE, drain).await;
    });
}
