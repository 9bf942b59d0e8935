//! The blocking body of `search_files`: a regex over the lines of the text
//! files under a directory, optionally filtered by a glob-style file pattern.

use std::fs;

use regex::{Regex, RegexBuilder};
use tokio_util::sync::CancellationToken;

use super::files::{io_error, is_vcs_dir};
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
    let base = workspace
        .resolve(request.path)
        .map_err(|e| ToolError::new(e.to_string()))?;
    let shown = workspace.quote(&base);
    fs::metadata(&base).map_err(|e| io_error("search", &shown, e))?;

    let mut out = Vec::new();
    let mut truncated = false;
    let mut n_skipped_large = 0usize;
    let walker = walkdir::WalkDir::new(&base)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| !is_vcs_dir(entry));
    'files: for entry in walker {
        if cancel.is_cancelled() {
            return Err(ToolError::new("cancelled"));
        }
        let Ok(entry) = entry else { continue };
        // Symbolic links are not followed, so none can lead out of the root.
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = workspace.display(entry.path());
        if pattern.as_ref().is_some_and(|p| !p.matches(&relative)) {
            continue;
        }
        match entry.metadata() {
            Ok(m) if m.len() > request.max_file_bytes => {
                n_skipped_large += 1;
                continue;
            }
            Ok(_) => {}
            Err(_) => continue,
        }
        let Ok(bytes) = fs::read(entry.path()) else {
            continue;
        };
        // Binary and non-UTF-8 files are not text to search.
        if bytes.contains(&0) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        for (idx, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if out.len() == request.max_results {
                    truncated = true;
                    break 'files;
                }
                out.push(format!("{relative}:{}: {}", idx + 1, cut(line)));
            }
        }
    }
    if out.is_empty() {
        out.push(format!("no matches for `{}` in `{shown}`", request.regex));
    }
    if truncated {
        out.push(format!(
            "[search stopped after {} matches; narrow the path, regex or file_pattern]",
            request.max_results
        ));
    }
    if n_skipped_large > 0 {
        out.push(format!(
            "[skipped {n_skipped_large} files larger than {} bytes]",
            request.max_file_bytes
        ));
    }
    Ok(out.join("\n"))
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
