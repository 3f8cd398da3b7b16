//! Builds a tantivy full-text index from the crawler's content store.
//!
//! - [`build()`]: reads `DATA/store` read-only and writes `DATA/index` — full or incremental.
//! - [`linkgraph`]: in-link counts and anchor text from the stored outlinks.
//! - [`text`]: title, headings and body text of a page, boilerplate left out.
//! - [`schema`]: the index fields and [`IndexFields`].
//! - [`open_current`]: the index a reader (searchd) should use now.
//!
//! ```no_run
//! let summary = indexer::build("crawl-data".as_ref(), indexer::BuildMode::Incremental)?;
//! println!("{} documents", summary.total_docs);
//! # Ok::<(), indexer::Error>(())
//! ```

mod build;
pub mod linkgraph;
pub mod schema;
pub mod text;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use build::{build, current_generation, current_generation_marker};
pub use schema::IndexFields;

/// How much to rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildMode {
    /// Update the current generation with the documents that changed.
    Incremental,
    /// Write a new generation and switch to it.
    Full,
}

/// What a build did.
#[derive(Clone, Debug, Default)]
pub struct BuildSummary {
    /// The generation written or updated.
    pub generation: String,
    /// Documents added or replaced.
    pub indexed: u64,
    /// Documents removed (page gone or now noindex).
    pub deleted: u64,
    /// Documents left as they were.
    pub unchanged: u64,
    /// Pages skipped for `noindex`.
    pub skipped_noindex: u64,
    /// Pages that are copies of another document.
    pub skipped_duplicates: u64,
    /// Pages skipped for other reasons: errors, non-2xx, redirects, non-HTML.
    pub skipped_other: u64,
    /// Documents in the index after the build.
    pub total_docs: u64,
    /// How long it took.
    pub elapsed: Duration,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content store could not be read.
    #[error(transparent)]
    Store(#[from] shared::StoreError),
    /// A stored record could not be decoded.
    #[error(transparent)]
    Record(#[from] shared::RecordError),
    /// tantivy failed.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// A file of the index directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The index lacks a field this build expects (built by another version).
    #[error("the index has no field {0:?}: rebuild it with `indexer build --full`")]
    Schema(String),
    /// The document state file is unreadable.
    #[error("document state {0}: {1}; rebuild with `indexer build --full`")]
    State(String, String),
}

impl Error {
    fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }
}

/// The index a reader should use now.
pub struct CurrentIndex {
    /// The tantivy index.
    pub index: tantivy::Index,
    /// Its generation's name.
    pub generation: String,
    /// Its fields.
    pub fields: IndexFields,
}

/// Opens the current generation, or `None` when no index was built yet.
pub fn open_current(data: &Path) -> Result<Option<CurrentIndex>, Error> {
    let Some(generation) = current_generation(data)? else { return Ok(None) };
    let dir = data.join("index").join(&generation);
    let index = tantivy::Index::open_in_dir(&dir)?;
    let fields = IndexFields::new(&index.schema())?;
    Ok(Some(CurrentIndex { index, generation, fields }))
}
