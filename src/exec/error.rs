//! `ExecError`: why a call could not even be started.

use crate::core::echo;

/// A call that could not be routed to a tool. Everything that happens once a
/// tool is found (bad arguments, timeout, panic, handler error) is an `isError`
/// result instead, so the model can read it and try again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// No tool of this name is registered.
    #[error("unknown tool `{}`{}", echo(.name), did_you_mean(.suggestions))]
    UnknownTool {
        /// The requested name (quoted in the message cut to a few hundred bytes).
        name: String,
        /// Registered names close to it, best first.
        suggestions: Vec<String>,
    },
}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = suggestions.iter().map(|s| format!("`{s}`")).collect();
        format!("; did you mean {}?", names.join(", "))
    }
}
