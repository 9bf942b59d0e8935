//! Admission of an upstream's `tools/list`: the list is untrusted input.
//!
//! A list that breaks the rules as a whole (too many tools, a nameless or
//! control-character name, duplicates, a schema that is not an object schema or
//! does not compile) refuses the upstream. Per-tool problems that do not make the
//! list malformed (a long description) are fixed and reported.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::Tool;

use super::error::UpstreamError;
use super::status::UpstreamIssue;
use crate::registry::{RegisteredTool, ToolHandler, ToolSource};

/// The longest upstream tool name accepted (the MCP spec recommends 128).
const MAX_UPSTREAM_NAME_BYTES: usize = 256;
/// The longest title kept.
const MAX_TITLE_CHARS: usize = 256;

/// Limits applied to one upstream's list.
#[derive(Debug, Clone)]
pub(crate) struct AdmitRules<'a> {
    pub(crate) server: &'a str,
    pub(crate) prefix: Option<&'a str>,
    pub(crate) separator: &'a str,
    pub(crate) max_tools: usize,
    pub(crate) max_description_chars: usize,
    pub(crate) timeout: Option<std::time::Duration>,
}

/// One admitted tool.
#[derive(Debug)]
pub(crate) struct Admitted {
    pub(crate) upstream_name: String,
    pub(crate) tool: RegisteredTool,
}

/// Checks and renames an upstream's tools. `handler_for(real_name)` builds the
/// forwarding handler of each tool.
pub(crate) fn admit_tools(
    rules: &AdmitRules<'_>,
    tools: Vec<Tool>,
    handler_for: impl Fn(&str) -> Arc<dyn ToolHandler>,
) -> Result<(Vec<Admitted>, Vec<UpstreamIssue>), UpstreamError> {
    let malformed = |reason: String| UpstreamError::MalformedToolList {
        server: rules.server.to_owned(),
        reason,
    };
    if tools.len() > rules.max_tools {
        return Err(malformed(format!(
            "{} tools advertised, more than the limit of {}",
            tools.len(),
            rules.max_tools
        )));
    }
    let mut problems = Vec::new();
    let mut issues = Vec::new();
    let mut admitted = Vec::with_capacity(tools.len());
    let mut seen_real = HashSet::new();
    let mut seen_public = HashSet::new();
    for (idx, tool) in tools.into_iter().enumerate() {
        let real = tool.name.to_string();
        if let Err(why) = check_upstream_name(&real) {
            problems.push(format!("tool #{idx} ({}): {why}", quoted_prefix(&real)));
            continue;
        }
        if !seen_real.insert(real.clone()) {
            problems.push(format!("tool `{real}` is listed twice"));
            continue;
        }
        let public = super::naming::public_tool_name(rules.prefix, rules.separator, &real);
        if !seen_public.insert(public.clone()) {
            issues.push(UpstreamIssue::NameCollision {
                public_name: public,
                upstream_tool: real,
                holder: ToolSource::Upstream(rules.server.to_owned()),
            });
            continue;
        }
        let definition =
            sanitize_definition(tool, &public, rules.max_description_chars, &mut issues);
        match RegisteredTool::new(definition, Some(handler_for(&real))) {
            Ok(registered) => {
                let mut registered =
                    registered.with_source(ToolSource::Upstream(rules.server.to_owned()));
                if let Some(timeout) = rules.timeout {
                    registered = registered.with_timeout(timeout);
                }
                admitted.push(Admitted {
                    upstream_name: real,
                    tool: registered,
                });
            }
            Err(e) => problems.push(format!("tool `{real}`: {e}")),
        }
    }
    if problems.is_empty() {
        Ok((admitted, issues))
    } else {
        Err(malformed(problems.join("; ")))
    }
}

fn check_upstream_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        Err("empty name")
    } else if name.len() > MAX_UPSTREAM_NAME_BYTES {
        Err("name longer than 256 bytes")
    } else if name.chars().any(|c| c.is_control() || c.is_whitespace()) {
        Err("name contains whitespace or control characters")
    } else {
        Ok(())
    }
}

/// The first 40 characters of an untrusted name, debug-quoted for messages.
fn quoted_prefix(name: &str) -> String {
    let head: String = name.chars().take(40).collect();
    format!("{head:?}")
}

/// Renames, cuts long text and drops what the registry does not pass on
/// (`_meta`, icons).
fn sanitize_definition(
    mut tool: Tool,
    public: &str,
    max_description_chars: usize,
    issues: &mut Vec<UpstreamIssue>,
) -> Tool {
    tool.name = public.to_owned().into();
    if let Some(description) = &tool.description {
        let chars = description.chars().count();
        if chars > max_description_chars {
            let cut: String = description.chars().take(max_description_chars).collect();
            tool.description = Some(cut.into());
            issues.push(UpstreamIssue::DescriptionTruncated {
                public_name: public.to_owned(),
                chars,
            });
        }
    }
    if let Some(title) = &tool.title
        && title.chars().count() > MAX_TITLE_CHARS
    {
        tool.title = Some(title.chars().take(MAX_TITLE_CHARS).collect());
    }
    tool.meta = None;
    tool.icons = None;
    tool
}
