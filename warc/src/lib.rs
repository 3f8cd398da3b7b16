//! WARC 1.1 records, read and written: what a web archive file holds, apart from what any one
//! program does with it. The crawler's `export` and `import` are built on it.
//!
//! - **Records** ([`WarcHeader`]): the `WARC/1.1` version line and named fields, compared
//!   case-insensitively; the record types an importer tells apart ([`RecordType`]); the
//!   `sha1:` base32 block and payload digests ([`sha1_digest`], as warcio and wget write
//!   them) and name-based record ids ([`record_id`], so one input always gets the same ids);
//!   `WARC-Date` read and written to the millisecond ([`format_ms`], [`parse_ms`]).
//! - **Writing** ([`WarcWriter`]): each record its own gzip member, so a reader can seek to
//!   any record and a damaged member loses only its own.
//! - **Reading** ([`RecordReader`]): a record at a time from a stream, no block over the
//!   caller's limit held in memory, and after a damaged record ([`Damage`]: no version line, a
//!   header line that is none, a `Content-Length` that is no number or does not end where the
//!   record does, a record over the limit) reading goes on at the next `WARC/1.` line.
//! - **Files** ([`layout`], [`read_records`]): plain, a gzip member per record, or one gzip
//!   member for the whole file, every record handed on with its [`Position`]; a corrupt or
//!   cut gzip member is reported at its offset and reading goes on at the next member. A
//!   file that is no WARC at all is an [`Error`] before anything is read.
//!
//! Files: `record.rs` the header model, digests and ids, `date.rs` `WARC-Date`, `write.rs`
//! the writer, `read.rs` the record reader and its resynchronization, `archive.rs` a file's
//! compression and gzip members.

#![deny(missing_docs)]

mod archive;
mod date;
mod read;
mod record;
mod write;

use std::path::{Path, PathBuf};

pub use archive::{Layout, Position, layout, read_records};
pub use date::{format_ms, parse_ms};
pub use read::{Damage, MAX_HEADER_BYTES, Next, Record, RecordReader};
pub use record::{RecordType, VERSION, WarcHeader, record_id, sha1_digest};
pub use write::WarcWriter;

/// Why a WARC file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a WARC file.
    #[error("{path} is not a WARC file: {why}")]
    NotWarc {
        /// The file.
        path: PathBuf,
        /// What it starts with instead.
        why: String,
    },
}

impl Error {
    /// An I/O error on `path`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
