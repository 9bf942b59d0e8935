//! What the gateway reports about each upstream: its state, its tools and the
//! problems found in its tool list.

use std::fmt;

use crate::registry::ToolSource;

/// The life-cycle state of one upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamState {
    /// Starting the process or connecting, for the first time.
    Connecting,
    /// Connected; its tools are registered.
    Ready,
    /// The connection died or could not be made; retrying with backoff. Its
    /// tools stay registered while the first retry is under way, and calls to
    /// them give an `isError` result saying so.
    Restarting {
        /// Failed attempts since it was last ready.
        attempt: u32,
        /// Why the last connection ended or failed.
        last_error: String,
    },
    /// Refused for good (for example a malformed tool list); its tools are not
    /// registered.
    Refused(String),
    /// Shut down.
    Stopped,
}

impl fmt::Display for UpstreamState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamState::Connecting => f.write_str("connecting"),
            UpstreamState::Ready => f.write_str("ready"),
            UpstreamState::Restarting {
                attempt,
                last_error,
            } => {
                write!(f, "restarting (attempt {attempt}): {last_error}")
            }
            UpstreamState::Refused(why) => write!(f, "refused: {why}"),
            UpstreamState::Stopped => f.write_str("stopped"),
        }
    }
}

/// Something wrong with one tool of an upstream that did not refuse the
/// upstream as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamIssue {
    /// The tool's registry name is taken by another tool, which is kept: the
    /// upstream tool is not registered (never silently shadowed).
    NameCollision {
        /// The registry name both want.
        public_name: String,
        /// The upstream tool's real name.
        upstream_tool: String,
        /// Where the tool holding the name comes from.
        holder: ToolSource,
    },
    /// The description was longer than the limit and was cut.
    DescriptionTruncated {
        /// The tool's registry name.
        public_name: String,
        /// The original length in characters.
        chars: usize,
    },
}

impl fmt::Display for UpstreamIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpstreamIssue::NameCollision {
                public_name,
                upstream_tool,
                holder,
            } => {
                let holder = match holder {
                    ToolSource::Local => "a local tool".to_owned(),
                    ToolSource::Upstream(server) => format!("a tool of upstream `{server}`"),
                    ToolSource::SchemaOnly => "a schema-only tool".to_owned(),
                };
                write!(
                    f,
                    "name collision: `{upstream_tool}` would be registered as `{public_name}`, which {holder} already has; it is not registered"
                )
            }
            UpstreamIssue::DescriptionTruncated { public_name, chars } => write!(
                f,
                "the description of `{public_name}` ({chars} characters) was cut to the limit"
            ),
        }
    }
}

/// One registered upstream tool: its registry name and its real name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct UpstreamTool {
    /// The name in the registry (what models call).
    pub public_name: String,
    /// The name the upstream advertised (what is sent to it).
    pub upstream_name: String,
}

/// A snapshot of one upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpstreamStatus {
    /// The configured name.
    pub name: String,
    /// The state.
    pub state: UpstreamState,
    /// The child's process id (stdio upstreams that are running).
    pub pid: Option<u32>,
    /// Its registered tools, sorted by registry name.
    pub tools: Vec<UpstreamTool>,
    /// Problems found in its latest tool list.
    pub issues: Vec<UpstreamIssue>,
    /// How many times it has (re)connected successfully.
    pub connections: u32,
}
