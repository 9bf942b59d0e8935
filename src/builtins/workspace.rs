//! `Workspace`: the one directory the file tools may touch, held open as a
//! directory handle, and the path rule that names places inside it.
//!
//! A path from a model is joined to the root (or taken as is when absolute),
//! normalised lexically (`.` dropped, `..` removed with the component before it)
//! and must then lie under the root: what is left is a relative path with no
//! `..`. Every access opens that relative path through the root's handle
//! ([`cap_std::fs::Dir`]), which resolves it beneath the root in the same step
//! as the open (`openat2` with `RESOLVE_BENEATH` on Linux, a component-wise walk
//! elsewhere). There is no check-then-open gap for a swapped link to slip
//! through.
//!
//! Symbolic links: a link inside the workspace is followed when its target,
//! resolved step by step, stays inside (`code -> src`, `a -> ../docs/a.md`). A
//! link whose target leads out, and any link with an absolute target (even one
//! that names a place inside), is refused: "path escapes the workspace".

use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::{Dir, Metadata};

use crate::core::echo;
use crate::registry::ToolError;

/// Why a path was refused before touching the file system.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PathError {
    /// The path itself (`..`, or an absolute path) points outside the root.
    #[error("path `{}` is outside the workspace root `{}`", echo(.path), .root.display())]
    Outside {
        /// The path as given.
        path: String,
        /// The canonical root.
        root: PathBuf,
    },
    /// The path contains a NUL character.
    #[error("path `{}` contains a NUL character", echo(.path))]
    Nul {
        /// The path as given, NUL escaped.
        path: String,
    },
}

/// The workspace root: its canonical path (for messages and absolute paths
/// from a model) and an open handle every access goes through.
#[derive(Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
    /// The root as configured, absolute and normalised but not canonical: an
    /// absolute path from a model may name the root this way too.
    given: PathBuf,
    dir: Dir,
}

/// A path inside the workspace, relative to the root, and how it is shown.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The path as the model gave it.
    pub(crate) raw: String,
    /// Relative to the root, without `.` or `..`; empty for the root itself.
    pub(crate) relative: PathBuf,
    /// `relative`, `/`-separated; `.` for the root.
    pub(crate) shown: String,
}

impl Workspace {
    /// Opens `root`, which must be an existing directory. Blocking.
    pub(crate) fn open(root: &Path) -> io::Result<Self> {
        let given = normalize(&std::path::absolute(root)?);
        let root = std::fs::canonicalize(root)?;
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority())?;
        if !dir.dir_metadata()?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            ));
        }
        Ok(Self { root, given, dir })
    }

    /// The canonical root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The handle every access goes through.
    pub(crate) fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Names the place inside the root that a path from a model means, which
    /// may not exist. An empty path means the root. Touches nothing.
    pub(crate) fn resolve(&self, raw: &str) -> Result<Resolved, PathError> {
        if raw.contains('\0') {
            return Err(PathError::Nul {
                path: raw.replace('\0', "\\0"),
            });
        }
        let given = Path::new(raw);
        let lexical = if given.is_absolute() {
            normalize(given)
        } else {
            normalize(&self.root.join(given))
        };
        let relative = lexical
            .strip_prefix(&self.root)
            .or_else(|_| lexical.strip_prefix(&self.given))
            .map_err(|_| PathError::Outside {
                path: raw.to_owned(),
                root: self.root.clone(),
            })?
            .to_path_buf();
        Ok(Resolved {
            raw: raw.to_owned(),
            // Messages quote it: cut to a few hundred bytes, its size stated.
            shown: echo(&display(&relative)).to_string(),
            relative,
        })
    }

    /// Opens a directory inside the root (the root itself for an empty path).
    pub(crate) fn open_dir(&self, relative: &Path) -> io::Result<Dir> {
        if relative.as_os_str().is_empty() {
            self.dir.try_clone()
        } else {
            self.dir.open_dir(relative)
        }
    }

    /// What a path inside the root leads to, links inside followed.
    pub(crate) fn metadata(&self, relative: &Path) -> io::Result<Metadata> {
        if relative.as_os_str().is_empty() {
            self.dir.dir_metadata()
        } else {
            self.dir.metadata(relative)
        }
    }

    /// The tool error for a failed access to `target`: a refused escape, a
    /// missing file, or the OS error.
    pub(crate) fn error(&self, doing: &str, target: &Resolved, e: io::Error) -> ToolError {
        if is_escape(&e) {
            ToolError::new(format!(
                "path `{}` escapes the workspace root `{}` through a symbolic link",
                echo(&target.raw),
                self.root.display()
            ))
        } else {
            io_error(doing, &target.shown, e)
        }
    }
}

/// The tool error for an OS error on `shown`.
pub(crate) fn io_error(doing: &str, shown: &str, e: io::Error) -> ToolError {
    match e.kind() {
        io::ErrorKind::NotFound => ToolError::new(format!("`{shown}` does not exist")),
        _ => ToolError::new(format!("cannot {doing} `{shown}`: {e}")),
    }
}

/// Whether cap-std refused an access because it led out of the directory: its
/// one `PermissionDenied` that carries no OS error code.
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none()
}

/// A root-relative path, `/`-separated; `.` for the root.
pub(crate) fn display(relative: &Path) -> String {
    let parts: Vec<_> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// Removes `.` and resolves `..` against the preceding component, without
/// touching the file system. `..` at the file-system root stays at the root.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
        }
    }
    out
}
