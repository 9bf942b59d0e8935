//! The router: a provider's byte stream in; text, calls, results and the next
//! turn's messages out.
//!
//! [`RouteSession`] is the synchronous core (bytes, decoded frames or neutral
//! deltas → [`RouteEvent`]s, no execution); [`Router`] drives it over an async
//! byte stream, or a typed client's stream of [`RouteInput`]s, and runs every
//! finished call through its [`Executor`](crate::Executor) as soon as it is complete;
//! [`TurnOutcome`] collects a turn's events into the normalised summary and the
//! follow-up messages in the provider's dialect.

mod cut_text;
mod driver;
mod event;
mod input;
mod outcome;
mod release;
mod session;
mod structured;

#[cfg(test)]
mod tests;

pub use driver::{RouteStream, Router};
pub use event::RouteEvent;
pub use input::{Frame, RawBytes, RouteInput};
pub use outcome::{CallResult, TurnOutcome};
pub(crate) use release::release;
pub use session::RouteSession;
