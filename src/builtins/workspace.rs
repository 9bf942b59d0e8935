//! `Workspace`: the one directory the file tools may touch, and the path check
//! that keeps every access inside it.
//!
//! A path from a model is joined to the root (or taken as is when absolute),
//! normalised lexically (`.` dropped, `..` removed with the component before it,
//! so the path handed to the OS never contains `..`), then its nearest existing
//! ancestor is canonicalised, which resolves every symbolic link on the way. The
//! result must lie under the canonical root. A dangling symbolic link is refused
//! outright: writing through it would create a file wherever it points.
//!
//! The check runs just before the access, not atomically with it: a process
//! that can swap a directory for a symbolic link in between can still win that
//! race. The file tools guard against the model, not against other local users.

use std::io;
use std::path::{Component, Path, PathBuf};

use crate::core::echo;

/// Why a path was refused or could not be resolved.
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
    /// The path stays inside lexically, but a symbolic link on it leads out.
    #[error(
        "path `{}` follows a symbolic link to `{}`, outside the workspace root `{}`",
        echo(.path),
        echo(&.target.to_string_lossy()),
        .root.display()
    )]
    SymlinkOutside {
        /// The path as given.
        path: String,
        /// Where the link leads.
        target: PathBuf,
        /// The canonical root.
        root: PathBuf,
    },
    /// A symbolic link on the path points at nothing.
    #[error(
        "path `{}` goes through the dangling symbolic link `{}`, which is not followed",
        echo(.path),
        echo(.link)
    )]
    DanglingLink {
        /// The path as given.
        path: String,
        /// The link, relative to the root.
        link: String,
    },
    /// The path contains a NUL character.
    #[error("path `{}` contains a NUL character", echo(.path))]
    Nul {
        /// The path as given, NUL escaped.
        path: String,
    },
    /// The file system refused to say where the path leads.
    #[error("cannot resolve path `{}`: {source}", echo(.path))]
    Io {
        /// The path as given.
        path: String,
        /// The OS error.
        source: io::Error,
    },
}

/// The canonical workspace root.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// Opens `root`, which must be an existing directory. Blocking.
    pub(crate) fn open(root: &Path) -> io::Result<Self> {
        let root = std::fs::canonicalize(root)?;
        if !std::fs::metadata(&root)?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            ));
        }
        Ok(Self { root })
    }

    /// The canonical root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path given by a model to an absolute path inside the root,
    /// which may not exist yet. An empty path means the root. Blocking.
    pub(crate) fn resolve(&self, raw: &str) -> Result<PathBuf, PathError> {
        if raw.contains('\0') {
            return Err(PathError::Nul {
                path: raw.replace('\0', "\\0"),
            });
        }
        let given = Path::new(raw);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        let lexical = normalize(&joined);

        // The nearest ancestor that exists (as a link or otherwise); the rest
        // is a tail of plain names that do not exist yet.
        let mut existing = lexical.as_path();
        let mut tail = Vec::new();
        while std::fs::symlink_metadata(existing).is_err() {
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    tail.push(name.to_owned());
                    existing = parent;
                }
                _ => break,
            }
        }
        let canonical = match std::fs::canonicalize(existing) {
            Ok(canonical) => canonical,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(PathError::DanglingLink {
                    path: raw.to_owned(),
                    link: self.display_lexical(existing),
                });
            }
            Err(source) => {
                return Err(PathError::Io {
                    path: raw.to_owned(),
                    source,
                });
            }
        };
        let resolved = tail
            .iter()
            .rev()
            .fold(canonical.clone(), |path, name| path.join(name));
        if resolved.starts_with(&self.root) {
            Ok(resolved)
        } else if lexical.starts_with(&self.root) {
            Err(PathError::SymlinkOutside {
                path: raw.to_owned(),
                target: canonical,
                root: self.root.clone(),
            })
        } else {
            Err(PathError::Outside {
                path: raw.to_owned(),
                root: self.root.clone(),
            })
        }
    }

    /// [`display`](Self::display) as messages quote it: cut to a few hundred
    /// bytes with its size stated.
    pub(crate) fn quote(&self, resolved: &Path) -> String {
        echo(&self.display(resolved)).to_string()
    }

    /// A resolved path relative to the root, `/`-separated; `.` for the root.
    pub(crate) fn display(&self, resolved: &Path) -> String {
        let relative = resolved.strip_prefix(&self.root).unwrap_or(resolved);
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

    fn display_lexical(&self, path: &Path) -> String {
        if path.starts_with(&self.root) {
            self.quote(path)
        } else {
            echo(&path.to_string_lossy()).to_string()
        }
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
