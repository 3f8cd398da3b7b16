//! [`StoreError`]: why the content store could not be opened, read or written.

use std::path::PathBuf;

use crate::record::RecordError;

/// Why the store could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// RocksDB refused (missing directory, corruption, I/O).
    #[error("content store at {path}: {source}")]
    Db {
        /// The store directory.
        path: PathBuf,
        /// RocksDB's message.
        source: rocksdb::Error,
    },
    /// No store at that path (no crawl has written it).
    #[error("no content store at {0}: run `crawler crawl --data DIR` first")]
    Missing(PathBuf),
    /// Another process (a crawl, `crawler resume`) has the store open for writing.
    #[error(
        "the content store at {0} is in use by another crawler (one writer at a time; \
         status, report, explain, the indexer and searchd can read it meanwhile)"
    )]
    Locked(PathBuf),
    /// A value that does not decode.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// RocksDB failed during a read.
    #[error("reading the content store: {0}")]
    Read(#[from] rocksdb::Error),
    /// A write was refused (an I/O error): nothing of that write is in the store.
    #[error("cannot write the content store at {path}: {message}")]
    Write {
        /// The store directory.
        path: PathBuf,
        /// Why, as RocksDB or the OS said it.
        message: String,
    },
    /// The disk holding the store is full: nothing of the refused write is in the store.
    #[error(
        "no space left on the disk holding the content store at {0}: make room and run the \
         same command again (a crawl resumes where it stopped)"
    )]
    DiskFull(PathBuf),
    /// A partition store of a distributed crawl whose lease ran out (or was taken by a newer
    /// one) before a write: another worker may own it now, so nothing was written.
    #[error(
        "the lease on the partition stored at {0} ran out before a write: nothing was written \
         (another worker may own the partition now)"
    )]
    LeaseLost(PathBuf),
    /// A store opened as a partition it is not.
    #[error("the content store at {path} {why}")]
    WrongPartition {
        /// The store directory.
        path: PathBuf,
        /// What does not match, as a sentence's end.
        why: String,
    },
    /// A partition store claimed under an older lease epoch than one that already wrote it:
    /// Redis lost the epoch it gave since (a restart without its data, a failover to a
    /// replica behind), and must count on from the store's.
    #[error(
        "the content store at {path} was written under lease epoch {stamp}, newer than this \
         worker's {epoch}"
    )]
    StaleEpoch {
        /// The store directory.
        path: PathBuf,
        /// The epoch the store was last claimed under.
        stamp: u64,
        /// The lease's epoch.
        epoch: u64,
    },
    /// A partition store's backup (`crawler worker --backup DIR`) could not be written or
    /// restored; the message names the directory.
    #[error("backup: {0}")]
    Backup(String),
}

impl StoreError {
    /// The error of opening the store at `path` for writing: [`StoreError::Locked`] when
    /// RocksDB says another process holds its lock file.
    pub fn opening(path: PathBuf, source: rocksdb::Error) -> Self {
        let message = source.to_string();
        if message.contains("lock")
            && (message.contains("unavailable")
                || message.contains("Resource busy")
                || message.contains("No locks available")
                || message.contains("already held"))
        {
            return StoreError::Locked(path);
        }
        if is_disk_full(&message) {
            return StoreError::DiskFull(path);
        }
        StoreError::Db { path, source }
    }

    /// The error of a write to the store at `path` that RocksDB refused:
    /// [`StoreError::DiskFull`] when the disk is full.
    pub fn writing(path: PathBuf, source: rocksdb::Error) -> Self {
        let message = source.into_string();
        if is_disk_full(&message) {
            return StoreError::DiskFull(path);
        }
        StoreError::Write { path, message }
    }
}

/// Whether a RocksDB message reports a full disk (`ENOSPC`, as `strerror` spells it; RocksDB
/// passes the OS's words on).
fn is_disk_full(message: &str) -> bool {
    message.contains("No space left on device")
}
