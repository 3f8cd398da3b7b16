//! `Error`: why a build failed. A full disk is [`Error::DiskFull`], one line naming the index
//! directory; the build removes the generation it was writing.

use std::path::{Path, PathBuf};

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content store could not be opened or read.
    #[error(transparent)]
    Store(#[from] shared::StoreError),
    /// The data directory has no content store (nothing was crawled into it).
    #[error("no content store at {0}: run `crawler crawl --data DIR` first")]
    NoStore(PathBuf),
    /// A stored page body could not be decoded.
    #[error(transparent)]
    Record(#[from] shared::RecordError),
    /// tantivy failed (opening, writing or committing the index).
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
    /// An indexing thread failed without an error of its own (it panicked).
    #[error("an indexing thread failed: {0}")]
    Worker(String),
    /// The index's files: its generations, `CURRENT`, the lock, the fields it must have.
    #[error(transparent)]
    Format(#[from] index_format::Error),
    /// The disk holding the index is full; the half-written generation is removed.
    #[error(
        "no space left on the disk holding the index at {0}: make room and run the build again"
    )]
    DiskFull(PathBuf),
    /// The crawl's Redis could not be reached or refused a command (`--redis`).
    #[error("redis at {url}: {source}")]
    Redis {
        /// The Redis URL.
        url: String,
        /// The client's error.
        source: redis::RedisError,
    },
    /// The exchange round between machines failed: a partition claimed twice, another
    /// crawl's round, or partitions missing at the deadline (named in the message).
    #[error("{0}")]
    Round(String),
    /// The data directory's partitions do not agree on the crawl they belong to.
    #[error("{0}")]
    Partitions(String),
}

impl Error {
    /// This error, or [`Error::DiskFull`] naming `dir` when what failed was a write to a full
    /// disk (an `ENOSPC` anywhere in its chain; tantivy passes some I/O errors on as text).
    pub(crate) fn or_disk_full(self, dir: &Path) -> Self {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&self);
        let mut full = false;
        while let Some(error) = cause {
            full |= error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull);
            full |= error.to_string().contains("No space left on device");
            cause = error.source();
        }
        if full {
            Error::DiskFull(dir.to_path_buf())
        } else {
            self
        }
    }

    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
