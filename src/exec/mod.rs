//! The executor: the one path every tool call takes, from a model stream or from
//! an MCP client's `tools/call`.

mod error;
mod executor;

#[cfg(test)]
mod tests;

pub use error::ExecError;
pub use executor::{CallOutcome, Executor, ExecutorConfig};
