//! The blocking bodies of `read_file`, `write_to_file` and `list_files`; the
//! handlers run them on tokio's blocking pool.

use std::fs;
use std::io::{BufRead, BufReader, Read};

use tokio_util::sync::CancellationToken;

use super::workspace::Workspace;
use crate::registry::ToolError;

/// What `read_file` may return at most, and how.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// The most bytes returned (whole file or line range).
    pub(crate) max_bytes: u64,
}

/// A 1-based inclusive line range; either end may be open.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LineRange {
    pub(crate) start: Option<u64>,
    pub(crate) end: Option<u64>,
}

impl LineRange {
    fn is_whole(self) -> bool {
        self.start.is_none() && self.end.is_none()
    }
}

/// Reads a UTF-8 text file, whole or a line range of it.
pub(crate) fn read_file(
    workspace: &Workspace,
    raw: &str,
    range: LineRange,
    limits: ReadLimits,
) -> Result<String, ToolError> {
    let path = workspace
        .resolve(raw)
        .map_err(|e| ToolError::new(e.to_string()))?;
    let shown = workspace.quote(&path);
    let metadata = fs::metadata(&path).map_err(|e| io_error("read", &shown, e))?;
    if metadata.is_dir() {
        return Err(ToolError::new(format!(
            "`{shown}` is a directory, not a file; use list_files to see what it contains"
        )));
    }
    if !metadata.is_file() {
        // A FIFO or device would block the reading thread or never end.
        return Err(ToolError::new(format!("`{shown}` is not a regular file")));
    }
    let start = range.start.unwrap_or(1);
    let end = range.end.unwrap_or(u64::MAX);
    if start == 0 || end == 0 {
        return Err(ToolError::new("line numbers start at 1"));
    }
    if end < start {
        return Err(ToolError::new(format!(
            "end_line {end} is before start_line {start}"
        )));
    }
    if range.is_whole() && metadata.len() > limits.max_bytes {
        return Err(ToolError::new(format!(
            "`{shown}` is {} bytes, more than the {}-byte read limit; read part of it with start_line and end_line",
            metadata.len(),
            limits.max_bytes
        )));
    }
    let file = fs::File::open(&path).map_err(|e| io_error("read", &shown, e))?;
    let bytes = if range.is_whole() {
        let mut bytes = Vec::new();
        file.take(limits.max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| io_error("read", &shown, e))?;
        if bytes.len() as u64 > limits.max_bytes {
            return Err(ToolError::new(format!(
                "`{shown}` grew past the {}-byte read limit while being read",
                limits.max_bytes
            )));
        }
        bytes
    } else {
        read_lines(file, start, end, limits.max_bytes, &shown)?
    };
    String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "`{shown}` is not UTF-8 text (a binary file?); read_file only returns text"
        ))
    })
}

/// Copies lines `start..=end` (1-based) without holding more than the output
/// and one buffer in memory.
fn read_lines(
    file: fs::File,
    start: u64,
    end: u64,
    max_bytes: u64,
    shown: &str,
) -> Result<Vec<u8>, ToolError> {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut out = Vec::new();
    let mut line: u64 = 1;
    let mut at_line_start = true;
    loop {
        let chunk = reader.fill_buf().map_err(|e| io_error("read", shown, e))?;
        if chunk.is_empty() {
            break;
        }
        let mut consumed = 0;
        while consumed < chunk.len() && line <= end {
            let piece = &chunk[consumed..];
            let (len, ends_line) = match piece.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (piece.len(), false),
            };
            if line >= start {
                if (out.len() + len) as u64 > max_bytes {
                    return Err(ToolError::new(format!(
                        "lines {start}-{end} of `{shown}` exceed the {max_bytes}-byte read limit; ask for fewer lines"
                    )));
                }
                out.extend_from_slice(&piece[..len]);
            }
            at_line_start = ends_line;
            if ends_line {
                line += 1;
            }
            consumed += len;
        }
        reader.consume(consumed);
        if line > end {
            break;
        }
    }
    // The number of lines: a final line without a newline still counts.
    let n_lines = if at_line_start { line - 1 } else { line };
    if start > n_lines {
        return Err(ToolError::new(format!(
            "start_line {start} is past the end of `{shown}`, which has {n_lines} lines"
        )));
    }
    Ok(out)
}

/// Writes `content` to a file, creating missing parent directories.
pub(crate) fn write_file(
    workspace: &Workspace,
    raw: &str,
    content: &str,
    max_bytes: usize,
) -> Result<String, ToolError> {
    if content.len() > max_bytes {
        return Err(ToolError::new(format!(
            "content is {} bytes, more than the {max_bytes}-byte write limit",
            content.len()
        )));
    }
    let path = workspace
        .resolve(raw)
        .map_err(|e| ToolError::new(e.to_string()))?;
    let shown = workspace.quote(&path);
    if path == workspace.root() {
        return Err(ToolError::new(
            "the path must name a file, not the workspace root",
        ));
    }
    let existed = match fs::metadata(&path) {
        Ok(m) if m.is_dir() => {
            return Err(ToolError::new(format!(
                "`{shown}` is a directory; give the path of a file"
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(ToolError::new(format!("`{shown}` is not a regular file")));
        }
        Ok(_) => true,
        Err(_) => false,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| io_error("create the directories of", &shown, e))?;
    }
    fs::write(&path, content).map_err(|e| io_error("write", &shown, e))?;
    let verb = if existed { "overwrote" } else { "created" };
    Ok(format!("{verb} `{shown}` ({} bytes)", content.len()))
}

/// What `list_files` should list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListRequest {
    pub(crate) recursive: bool,
    pub(crate) max_entries: usize,
}

/// Lists a directory: one entry per line, paths relative to the workspace
/// root, directories with a trailing `/`, in name order. Symbolic links are
/// listed but never followed.
pub(crate) fn list_files(
    workspace: &Workspace,
    raw: &str,
    request: ListRequest,
    cancel: &CancellationToken,
) -> Result<String, ToolError> {
    let path = workspace
        .resolve(raw)
        .map_err(|e| ToolError::new(e.to_string()))?;
    let shown = workspace.quote(&path);
    let metadata = fs::metadata(&path).map_err(|e| io_error("list", &shown, e))?;
    if !metadata.is_dir() {
        return Err(ToolError::new(format!(
            "`{shown}` is a file, not a directory; use read_file to read it"
        )));
    }
    let walker = walkdir::WalkDir::new(&path)
        .min_depth(1)
        .max_depth(if request.recursive { usize::MAX } else { 1 })
        .follow_links(false)
        .sort_by_file_name();
    let mut lines = Vec::new();
    let mut truncated = false;
    let mut entries = walker.into_iter();
    while let Some(entry) = entries.next() {
        if cancel.is_cancelled() {
            return Err(ToolError::new("cancelled"));
        }
        let entry = match entry {
            Ok(entry) => entry,
            // An unreadable subdirectory does not spoil the rest of the listing.
            Err(e) => {
                tracing::debug!(error = %e, "list_files skipped an entry");
                continue;
            }
        };
        if lines.len() == request.max_entries {
            truncated = true;
            break;
        }
        let mut line = workspace.display(entry.path());
        if entry.file_type().is_dir() {
            line.push('/');
        }
        lines.push(line);
        if is_vcs_dir(&entry) {
            // Listed, but its thousands of object files are not.
            entries.skip_current_dir();
        }
    }
    if lines.is_empty() {
        return Ok(format!("`{shown}` is empty"));
    }
    if truncated {
        lines.push(format!(
            "[listing stopped after {} entries; list a subdirectory or raise max_entries]",
            request.max_entries
        ));
    }
    Ok(lines.join("\n"))
}

pub(crate) fn io_error(doing: &str, shown: &str, e: std::io::Error) -> ToolError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ToolError::new(format!("`{shown}` does not exist")),
        _ => ToolError::new(format!("cannot {doing} `{shown}`: {e}")),
    }
}

/// Whether a walked entry is a `.git` directory below the starting point: the
/// recursive tools show it but do not descend into it.
pub(crate) fn is_vcs_dir(entry: &walkdir::DirEntry) -> bool {
    entry.depth() > 0 && entry.file_type().is_dir() && entry.file_name() == ".git"
}
