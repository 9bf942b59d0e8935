//! `EventOutput`: where the detector writes its events, a `Vec<DetectEvent>`
//! or an [`EventBatch`], behind one seam that does not name the detector (a
//! writer only lends the batch it keeps for owned output: [`sealed::SpareBatch`]).

use crate::core::DetectEvent;

use super::batch::EventBatch;

/// Where [`StreamDetector`](super::StreamDetector) writes events: a `Vec<DetectEvent>` (owned events)
/// or an [`EventBatch`] (flat, the faster one to fill and read).
///
/// Events are appended; what the output held before is left as it was.
/// Implemented for those two types only.
pub trait EventOutput: sealed::Output {}

impl EventOutput for EventBatch {}
impl EventOutput for Vec<DetectEvent> {}

pub(crate) mod sealed {
    use crate::core::DetectEvent;
    use crate::detect::batch::EventBatch;

    /// What an [`Output`] needs of its writer: a place to keep the batch that
    /// owned output is filled through, so that it is allocated once per stream.
    pub trait SpareBatch {
        /// The kept batch.
        fn spare_batch(&mut self) -> &mut Option<Box<EventBatch>>;
    }

    /// How a writer (the detector) reaches the batch it writes into.
    pub trait Output {
        /// Runs `f` with the writer and a batch whose events end up in `self`.
        fn run<W: SpareBatch>(&mut self, writer: &mut W, f: impl FnOnce(&mut W, &mut EventBatch));
    }

    impl Output for EventBatch {
        fn run<W: SpareBatch>(&mut self, writer: &mut W, f: impl FnOnce(&mut W, &mut EventBatch)) {
            f(writer, self);
        }
    }

    impl Output for Vec<DetectEvent> {
        fn run<W: SpareBatch>(&mut self, writer: &mut W, f: impl FnOnce(&mut W, &mut EventBatch)) {
            // The writer's own batch, switched to write into this vector.
            // It is boxed so that taking it moves a pointer: moving the batch
            // itself (just written field by field) stalled on store forwarding
            // on every delta.
            let mut batch = writer.spare_batch().take().unwrap_or_default();
            batch.begin_direct(self);
            f(writer, &mut batch);
            batch.end_direct(self);
            *writer.spare_batch() = Some(batch);
        }
    }
}
