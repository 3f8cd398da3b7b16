//! WARC in and out: `crawler export --data DIR --warc FILE` writes the store's answers as a
//! WARC 1.1 file, `crawler import --data DIR --warc FILE...` loads a WARC another tool wrote
//! (wget, Heritrix, Browsertrix, warcio) into the store, as the crawl would have stored it.
//!
//! **Export** ([`export()`]) writes a `warcinfo` record, then for each stored answer (a page
//! with an HTTP status; fetches that got no answer are counted and left out) a `request`
//! record (the GET the crawler sent, rebuilt: method, path, `Host`, `User-Agent`, `Accept`,
//! `From`) and a `response` record, linked both ways by `WARC-Concurrent-To`, each with its
//! `WARC-Target-URI`, `WARC-Date` (the fetch time), a `WARC-Record-ID` derived from the URL,
//! the time and the record type (a SHA-1 name-based UUID, so one store exports to the same
//! ids), and `WARC-Block-Digest` / `WARC-Payload-Digest` (`sha1:` and base32, as warcio and
//! wget write them). Each record is its own gzip member. **The store keeps HTML bodies
//! decoded to UTF-8**, not the bytes that came, so the exported headers are made true for
//! the bytes written: `Content-Encoding` and `Transfer-Encoding` are dropped, `Content-Length`
//! is the body's length and an HTML body's `Content-Type` says `charset=utf-8`. Answers
//! without a stored body (redirects, errors, other media types) are written with their
//! headers and an empty body; a body the crawler cut at its limit carries `WARC-Truncated:
//! length`. A page rendered in a browser is followed by a `conversion` record: its document
//! after scripts (`text/html; charset=utf-8`), dated when it was rendered, naming the
//! response by `WARC-Refers-To`, so a replay tool has the page as served and as built.
//!
//! **Import** ([`import()`]) streams each file (plain, gzip per record, or gzipped whole), a
//! record at a time: no record over the limit (`max_body_bytes` plus 128 KiB of headers) is
//! held in memory. Each `response` record holding an HTTP answer goes the crawl's way into
//! the store: its head read (`Transfer-Encoding: chunked` and `Content-Encoding` gzip,
//! deflate and br undone, bounded by `max_body_bytes` as a fetch is), its charset decoded
//! ([`crate::charset`]), its URL canonicalized with `strip_params`, then the page's record,
//! links, content hash and simhash (copies found as a crawl finds them) and schedule are
//! written in one batch, and the URL is marked seen: a later `crawler crawl` of the same DIR
//! does not fetch it again (until its revisit, counted from the import). Links are **not**
//! queued: an import loads an archive, and a later crawl seeds what it wants. A later record
//! for a URL replaces an earlier one. `request`, `metadata`, `resource`, `revisit`,
//! `conversion` (a render is not imported), `warcinfo` and other records, robots.txt answers
//! and non-HTTP URLs are skipped and counted. A damaged record (a `Content-Length` that is
//! no number or does not end where the record does, a truncated or corrupt gzip member, a record over the limit) is reported with
//! its offset and skipped, and reading goes on at the next gzip member or `WARC/1.` line; a
//! file that is no WARC at all fails the command before anything is imported.
//!
//! The records, their reading, resynchronization and writing are the `warc` crate's; here is
//! what the crawler makes of them. Files: `http.rs` an archived answer's HTTP, `export.rs`,
//! `import.rs`, `problem.rs` what an import skips as damaged.

mod export;
mod http;
mod import;
mod problem;

use std::path::PathBuf;

pub use export::{ExportSummary, export};
pub use http::HttpError;
pub use import::{ImportSummary, import};
pub use problem::{ImportDamage, Problem};
pub use warc::{Damage, Position};

/// Why an export or import failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum WarcError {
    /// The content store refused (locked by a crawler, missing, corrupt, unwritable).
    #[error(transparent)]
    Store(#[from] shared::StoreError),
    /// A WARC file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file given to import could not be read, or is not a WARC file.
    #[error(transparent)]
    Archive(#[from] warc::Error),
    /// No runtime could be started for the kinds' readers.
    #[error("cannot start the readers' runtime: {0}")]
    Runtime(std::io::Error),
}

impl WarcError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> WarcError + '_ {
        move |source| WarcError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
