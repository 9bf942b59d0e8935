//! The blocking body of `search_files`: a regex over the lines of the text
//! files under a directory, optionally filtered by a glob-style file pattern.
//! Files are opened through the directory handles of the walk.

use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

use cap_std::fs::File;
use regex::{Regex, RegexBuilder};
use tokio_util::sync::CancellationToken;

use super::files::{open_for_reading, resolve};
use super::walk::{EntryKind, walk};
use super::workspace::Workspace;
use crate::registry::ToolError;

/// The longest matched line shown, in characters; longer ones are cut.
const MAX_LINE_CHARS: usize = 300;
/// The compiled size limit of a model-supplied regex or pattern.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// One search.
#[derive(Debug, Clone)]
pub(crate) struct SearchRequest<'a> {
    pub(crate) path: &'a str,
    pub(crate) regex: &'a str,
    pub(crate) file_pattern: Option<&'a str>,
    pub(crate) ignore_case: bool,
    pub(crate) max_results: usize,
    /// Files larger than this are skipped.
    pub(crate) max_file_bytes: u64,
}

/// Searches; each match is `path:line: text`, paths relative to the root.
pub(crate) fn search_files(
    workspace: &Workspace,
    request: &SearchRequest<'_>,
    cancel: &CancellationToken,
) -> Result<String, ToolError> {
    let regex = RegexBuilder::new(request.regex)
        .case_insensitive(request.ignore_case)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| ToolError::new(format!("invalid regex: {e}")))?;
    let pattern = request.file_pattern.map(FilePattern::new).transpose()?;
    let target = resolve(workspace, request.path)?;
    let shown = &target.shown;
    let metadata = workspace
        .metadata(&target.relative)
        .map_err(|e| workspace.error("search", &target, e))?;

    let mut found = Found::default();
    if metadata.is_dir() {
        let dir = workspace
            .open_dir(&target.relative)
            .map_err(|e| workspace.error("search", &target, e))?;
        walk(dir, shown, true, cancel, |entry| {
            // Symbolic links are not followed; a file swapped for one since the
            // directory was read is opened beneath the workspace or not at all.
            if entry.kind != EntryKind::File
                || pattern.as_ref().is_some_and(|p| !p.matches(entry.shown))
            {
                return ControlFlow::Continue(());
            }
            match open_for_reading(entry.parent, Path::new(entry.name)) {
                Ok(file) => found.search(file, entry.shown, &regex, request),
                Err(_) => ControlFlow::Continue(()),
            }
        })
        .map_err(|e| e.into_tool_error("search", shown))?;
    } else if metadata.is_file()
        && pattern.as_ref().is_none_or(|p| p.matches(shown))
        && let Ok(file) = open_for_reading(workspace.dir(), &target.relative)
    {
        let _ = found.search(file, shown, &regex, request);
    }

    let mut out = found.lines;
    if out.is_empty() {
        out.push(format!("no matches for `{}` in `{shown}`", request.regex));
    }
    if found.truncated {
        out.push(format!(
            "[search stopped after {} matches; narrow the path, regex or file_pattern]",
            request.max_results
        ));
    }
    if found.n_skipped_large > 0 {
        out.push(format!(
            "[skipped {} files larger than {} bytes]",
            found.n_skipped_large, request.max_file_bytes
        ));
    }
    Ok(out.join("\n"))
}

/// The matches of one search so far.
#[derive(Debug, Default)]
struct Found {
    lines: Vec<String>,
    truncated: bool,
    n_skipped_large: usize,
}

impl Found {
    /// Adds the matching lines of one opened file; breaks when the results
    /// are full. Skips what is not a regular text file or is too large.
    fn search(
        &mut self,
        file: File,
        shown: &str,
        regex: &Regex,
        request: &SearchRequest<'_>,
    ) -> ControlFlow<()> {
        match file.metadata() {
            Ok(m) if !m.is_file() => return ControlFlow::Continue(()),
            Ok(m) if m.len() > request.max_file_bytes => {
                self.n_skipped_large += 1;
                return ControlFlow::Continue(());
            }
            Ok(_) => {}
            Err(_) => return ControlFlow::Continue(()),
        }
        let mut bytes = Vec::new();
        let limit = request.max_file_bytes.saturating_add(1);
        if file.take(limit).read_to_end(&mut bytes).is_err() {
            return ControlFlow::Continue(());
        }
        if bytes.len() as u64 > request.max_file_bytes {
            // It grew past the limit after it was looked at.
            self.n_skipped_large += 1;
            return ControlFlow::Continue(());
        }
        // Binary and non-UTF-8 files are not text to search.
        if bytes.contains(&0) {
            return ControlFlow::Continue(());
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return ControlFlow::Continue(());
        };
        for (idx, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if self.lines.len() == request.max_results {
                    self.truncated = true;
                    return ControlFlow::Break(());
                }
                self.lines
                    .push(format!("{shown}:{}: {}", idx + 1, cut(line)));
            }
        }
        ControlFlow::Continue(())
    }
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// A glob-style file pattern: `*` (within one path segment), `?`, `**` (any
/// number of segments), `{a,b}` alternatives. Without a `/` it matches the
/// file name (`*.rs`); with one, the path relative to the workspace root
/// (`src/**/*.rs`).
#[derive(Debug)]
pub(crate) struct FilePattern {
    regex: Regex,
    whole_path: bool,
}

impl FilePattern {
    pub(crate) fn new(glob: &str) -> Result<Self, ToolError> {
        let bad = |why: &str| ToolError::new(format!("invalid file_pattern `{glob}`: {why}"));
        let mut re = String::from("^");
        let mut chars = glob.chars().peekable();
        let mut in_braces = false;
        while let Some(c) = chars.next() {
            match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        re.push_str("(?:.*/)?");
                    } else {
                        re.push_str(".*");
                    }
                }
                '*' => re.push_str("[^/]*"),
                '?' => re.push_str("[^/]"),
                '{' if in_braces => return Err(bad("nested `{`")),
                '{' => {
                    in_braces = true;
                    re.push_str("(?:");
                }
                '}' if in_braces => {
                    in_braces = false;
                    re.push(')');
                }
                ',' if in_braces => re.push('|'),
                other => re.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
            }
        }
        if in_braces {
            return Err(bad("unclosed `{`"));
        }
        re.push('$');
        let regex = RegexBuilder::new(&re)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| bad(&e.to_string()))?;
        Ok(Self {
            regex,
            whole_path: glob.contains('/'),
        })
    }

    /// Whether a root-relative, `/`-separated path matches.
    pub(crate) fn matches(&self, relative: &str) -> bool {
        if self.whole_path {
            self.regex.is_match(relative)
        } else {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            self.regex.is_match(name)
        }
    }
}
