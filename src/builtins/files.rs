//! The blocking bodies of `read_file`, `write_to_file` and `list_files`; the
//! handlers run them on tokio's blocking pool. Every access goes through the
//! workspace's directory handle (`Workspace`), never through an ambient path.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::ops::ControlFlow;
use std::path::Path;

use cap_std::fs::{Dir, File, OpenOptions};
use tokio_util::sync::CancellationToken;

use super::walk::{EntryKind, walk};
use super::workspace::{Resolved, Workspace, io_error};
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
    let target = resolve(workspace, raw)?;
    let shown = &target.shown;
    let file = open_for_reading(workspace.dir(), &target.relative)
        .map_err(|e| workspace.error("read", &target, e))?;
    let metadata = file
        .metadata()
        .map_err(|e| workspace.error("read", &target, e))?;
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
    let bytes = if range.is_whole() {
        let mut bytes = Vec::new();
        file.take(limits.max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| io_error("read", shown, e))?;
        if bytes.len() as u64 > limits.max_bytes {
            return Err(ToolError::new(format!(
                "`{shown}` grew past the {}-byte read limit while being read",
                limits.max_bytes
            )));
        }
        bytes
    } else {
        read_lines(file, start, end, limits.max_bytes, shown)?
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
    file: File,
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

/// Writes `content` to a file, creating missing parent directories. The
/// content goes to a new file beside the target, renamed over it: a hard link
/// to a file elsewhere is replaced, never written through. A symbolic link
/// inside the workspace is followed to the file it names, which is replaced
/// with its permission bits kept.
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
    let target = resolve(workspace, raw)?;
    let shown = &target.shown;
    if target.relative.as_os_str().is_empty() {
        return Err(ToolError::new(
            "the path must name a file, not the workspace root",
        ));
    }
    let failed = |doing: &str, e: io::Error| workspace.error(doing, &target, e);
    let existing = match workspace.metadata(&target.relative) {
        Ok(m) if m.is_dir() => {
            return Err(ToolError::new(format!(
                "`{shown}` is a directory; give the path of a file"
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(ToolError::new(format!("`{shown}` is not a regular file")));
        }
        // Renaming over it would succeed; writing in place never did.
        Ok(m) if m.permissions().readonly() => {
            return Err(ToolError::new(format!(
                "cannot write `{shown}`: the file is read-only"
            )));
        }
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(failed("write", e)),
    };
    // The file a link inside names is the one replaced, so the link stays.
    let path = match existing {
        Some(_) => workspace
            .dir()
            .canonicalize(&target.relative)
            .map_err(|e| failed("write", e))?,
        None => target.relative.clone(),
    };
    let (parent, Some(name)) = (path.parent().unwrap_or(Path::new("")), path.file_name()) else {
        return Err(ToolError::new(
            "the path must name a file, not the workspace root",
        ));
    };
    if existing.is_none() && !parent.as_os_str().is_empty() {
        workspace
            .dir()
            .create_dir_all(parent)
            .map_err(|e| failed("create the directories of", e))?;
    }
    let dir = workspace.open_dir(parent).map_err(|e| failed("write", e))?;
    let verb = if existing.is_some() {
        "overwrote"
    } else {
        "created"
    };
    replace(&dir, Path::new(name), content.as_bytes(), existing).map_err(|e| failed("write", e))?;
    Ok(format!("{verb} `{shown}` ({} bytes)", content.len()))
}

/// Puts `content` at `name` in `dir`: a new file with a unique name (created
/// exclusively), renamed over `name`. The new file is removed if any step fails.
fn replace(
    dir: &Dir,
    name: &Path,
    content: &[u8],
    permissions: Option<cap_std::fs::Permissions>,
) -> io::Result<()> {
    let temporary = format!(".toolrouter-write-{}.tmp", uuid::Uuid::new_v4().simple());
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let mut file = dir.open_with(&temporary, &options)?;
    let written = file
        .write_all(content)
        .and_then(|()| match permissions {
            Some(permissions) => file.set_permissions(permissions),
            None => Ok(()),
        })
        .and_then(|()| {
            drop(file);
            dir.rename(&temporary, dir, name)
        });
    if written.is_err() {
        let _ = dir.remove_file(&temporary);
    }
    written
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
    let target = resolve(workspace, raw)?;
    let shown = &target.shown;
    let metadata = workspace
        .metadata(&target.relative)
        .map_err(|e| workspace.error("list", &target, e))?;
    if !metadata.is_dir() {
        return Err(not_a_directory(shown));
    }
    let dir = workspace
        .open_dir(&target.relative)
        .map_err(|e| match e.kind() {
            // Swapped for a file since it was looked at.
            io::ErrorKind::NotADirectory => not_a_directory(shown),
            _ => workspace.error("list", &target, e),
        })?;
    let mut lines = Vec::new();
    let mut truncated = false;
    walk(dir, shown, request.recursive, cancel, |entry| {
        if lines.len() == request.max_entries {
            truncated = true;
            return ControlFlow::Break(());
        }
        let mut line = entry.shown.to_owned();
        if entry.kind == EntryKind::Dir {
            line.push('/');
        }
        lines.push(line);
        ControlFlow::Continue(())
    })
    .map_err(|e| e.into_tool_error("list", shown))?;
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

fn not_a_directory(shown: &str) -> ToolError {
    ToolError::new(format!(
        "`{shown}` is a file, not a directory; use read_file to read it"
    ))
}

/// Resolves a path from a model, refusing one that leaves the workspace.
pub(crate) fn resolve(workspace: &Workspace, raw: &str) -> Result<Resolved, ToolError> {
    workspace
        .resolve(raw)
        .map_err(|e| ToolError::new(e.to_string()))
}

/// Opens a file for reading through `dir`. A FIFO is opened without waiting
/// for a writer (`O_NONBLOCK`, which changes nothing for a regular file), so
/// the caller can look at what it opened and refuse it.
pub(crate) fn open_for_reading(dir: &Dir, relative: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    dir.open_with(relative, &options)
}
