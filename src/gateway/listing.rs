//! Listing every registered tool with its source, as `toolrouter upstreams` (and
//! `toolrouter tools --config`) print it.

use std::fmt::Write as _;

use super::handle::Gateway;
use super::status::UpstreamStatus;
use crate::registry::{ToolRegistry, ToolSource};

/// One row of a tool listing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolListing {
    /// The registry name.
    pub name: String,
    /// Where it runs.
    pub source: ToolSource,
    /// For an upstream tool, the name the upstream advertised.
    pub upstream_name: Option<String>,
    /// The first line of its description.
    pub summary: String,
}

/// Every registered tool, sorted by name, with its source; `gateway` (if any)
/// supplies upstream tools' real names.
pub fn tool_listing(registry: &ToolRegistry, gateway: Option<&Gateway>) -> Vec<ToolListing> {
    let upstreams = gateway.map(Gateway::status).unwrap_or_default();
    registry
        .list()
        .into_iter()
        .map(|tool| {
            let upstream_name = match tool.source() {
                ToolSource::Upstream(server) => upstreams
                    .iter()
                    .filter(|u| &u.name == server)
                    .flat_map(|u| u.tools.iter())
                    .find(|t| t.public_name == tool.name())
                    .map(|t| t.upstream_name.clone()),
                _ => None,
            };
            let summary = tool
                .definition()
                .description
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or("")
                .to_owned();
            ToolListing {
                name: tool.name().to_owned(),
                source: tool.source().clone(),
                upstream_name,
                summary,
            }
        })
        .collect()
}

/// The listing as aligned text columns: name, source, description.
pub fn render_tool_listing(rows: &[ToolListing]) -> String {
    let sources: Vec<String> = rows.iter().map(source_label).collect();
    let name_width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(4);
    let source_width = sources.iter().map(String::len).max().unwrap_or(0).max(6);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:name_width$}  {:source_width$}  DESCRIPTION",
        "TOOL", "SOURCE"
    );
    for (row, source) in rows.iter().zip(&sources) {
        let summary: String = row.summary.chars().take(72).collect();
        let _ = writeln!(
            out,
            "{:name_width$}  {:source_width$}  {summary}",
            row.name, source
        );
    }
    out
}

/// One line per upstream: name, state, tool count, pid; then its issues.
pub fn render_upstream_status(status: &[UpstreamStatus]) -> String {
    let mut out = String::new();
    for upstream in status {
        let pid = upstream
            .pid
            .map(|p| format!(", pid {p}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "upstream {}: {} ({} tools{pid})",
            upstream.name,
            upstream.state,
            upstream.tools.len()
        );
        for issue in &upstream.issues {
            let _ = writeln!(out, "  warning: {issue}");
        }
    }
    out
}

fn source_label(row: &ToolListing) -> String {
    match (&row.source, &row.upstream_name) {
        (ToolSource::Local, _) => "local".to_owned(),
        (ToolSource::SchemaOnly, _) => "schema-only".to_owned(),
        (ToolSource::Upstream(server), Some(real)) => format!("{server}:{real}"),
        (ToolSource::Upstream(server), None) => server.clone(),
    }
}
