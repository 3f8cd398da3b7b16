//! `Error`: why the index could not be opened, or a generation file read or written.

use std::path::PathBuf;

/// Why the index could not be opened, or a file of its generations read or written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// tantivy could not open the index.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// A file or directory of the index could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another `indexer build` holds the lock on this data directory.
    #[error("another indexer is building {0} (its lock file is held)")]
    Locked(PathBuf),
    /// `CURRENT` holds something that is not a generation name.
    #[error("{path} holds {name:?}, which is not a generation name like gen-000001")]
    BadCurrent {
        /// The `CURRENT` file.
        path: PathBuf,
        /// What it holds.
        name: String,
    },
    /// `CURRENT` names a generation whose directory is missing.
    #[error("{0} is named by CURRENT but does not exist: run `indexer build --full`")]
    MissingGeneration(PathBuf),
    /// The index lacks a field searchd and the indexer expect (written by another version).
    #[error("the index has no field {0:?}: rebuild it with `indexer build --full`")]
    MissingField(String),
    /// The document state file of a generation could not be written.
    #[error("document state {path}: {reason}")]
    State {
        /// The state file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
