//! `walk`: a sorted, depth-first walk below a workspace directory, through
//! directory handles only. Each directory is opened relative to its parent's
//! handle, so a directory swapped for a symbolic link mid-walk can lead
//! nowhere outside the workspace. Symbolic links are reported, never
//! descended into; a `.git` directory is reported but not walked.

use std::ffi::{OsStr, OsString};
use std::ops::ControlFlow;

use cap_std::fs::Dir;
use tokio_util::sync::CancellationToken;

use crate::registry::ToolError;

/// What a directory entry is, as its directory says (links not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link, FIFO, socket or device.
    Other,
}

/// One entry met on a walk.
#[derive(Debug)]
pub(crate) struct Entry<'a> {
    /// The directory that holds the entry; open the entry through it.
    pub(crate) parent: &'a Dir,
    /// The entry's name in `parent`.
    pub(crate) name: &'a OsStr,
    /// The entry's path relative to the workspace root, `/`-separated.
    pub(crate) shown: &'a str,
    /// What the entry is.
    pub(crate) kind: EntryKind,
}

/// A directory being walked: its handle, its sorted entries and the next one.
struct Frame {
    dir: Dir,
    shown: String,
    entries: Vec<(OsString, EntryKind)>,
    next: usize,
}

impl Frame {
    fn read(dir: Dir, shown: String) -> std::io::Result<Self> {
        let mut entries = Vec::new();
        for entry in dir.entries()? {
            // An entry that vanished or cannot be read does not spoil the rest.
            let Ok(entry) = entry else { continue };
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_file() => EntryKind::File,
                Ok(_) => EntryKind::Other,
                Err(_) => continue,
            };
            entries.push((entry.file_name(), kind));
        }
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(Self {
            dir,
            shown,
            entries,
            next: 0,
        })
    }
}

/// Walks below `start` (shown as `start_shown`), calling `visit` on each entry
/// in name order, a directory before its contents; with `recursive` false,
/// only `start`'s own entries. `visit` stops the walk by breaking. An
/// unreadable subdirectory is skipped; an unreadable `start` is an error.
pub(crate) fn walk(
    start: Dir,
    start_shown: &str,
    recursive: bool,
    cancel: &CancellationToken,
    mut visit: impl FnMut(&Entry<'_>) -> ControlFlow<()>,
) -> Result<(), WalkError> {
    let mut stack = vec![Frame::read(start, start_shown.to_owned()).map_err(WalkError::Io)?];
    while let Some(frame) = stack.last_mut() {
        if cancel.is_cancelled() {
            return Err(WalkError::Cancelled);
        }
        let Some((name, kind)) = frame.entries.get(frame.next) else {
            stack.pop();
            continue;
        };
        frame.next += 1;
        let shown = join(&frame.shown, name);
        let entry = Entry {
            parent: &frame.dir,
            name,
            shown: &shown,
            kind: *kind,
        };
        if visit(&entry).is_break() {
            return Ok(());
        }
        if !recursive || *kind != EntryKind::Dir || name == ".git" {
            continue;
        }
        // Opened through the parent's handle: a directory swapped for a link
        // since it was read is followed only where it stays inside.
        let child = frame
            .dir
            .open_dir(name)
            .and_then(|dir| Frame::read(dir, shown));
        match child {
            Ok(child) => stack.push(child),
            Err(e) => tracing::debug!(error = %e, "a walk skipped a directory"),
        }
    }
    Ok(())
}

/// Why a walk stopped early.
#[derive(Debug)]
pub(crate) enum WalkError {
    /// The starting directory could not be read.
    Io(std::io::Error),
    /// The call was cancelled.
    Cancelled,
}

impl WalkError {
    /// The tool error, for a walk of `shown` that was `doing` something.
    pub(crate) fn into_tool_error(self, doing: &str, shown: &str) -> ToolError {
        match self {
            Self::Io(e) => super::workspace::io_error(doing, shown, e),
            Self::Cancelled => ToolError::new("cancelled"),
        }
    }
}

/// `parent/name`, or `name` below the root.
fn join(parent: &str, name: &OsStr) -> String {
    let name = name.to_string_lossy();
    if parent == "." {
        name.into_owned()
    } else {
        format!("{parent}/{name}")
    }
}
