//! The indexer: turns the crawler's content store into a tantivy index that searchd serves.
//!
//! A build reads `DATA/store` read-only (a crawl may be running) and writes `DATA/index`:
//!
//! - `source`: the store as the indexer reads it, and what kind of page each record is.
//! - `plan`: which pages become documents; duplicates and pages naming another as
//!   `rel=canonical` collapse to the canonical URL, else the shortest.
//! - `linkgraph`: in-link counts from distinct pages, and anchor text, per document.
//! - `text`: title, headings and visible body text of a page, boilerplate left out.
//! - `document`: a document's inputs, their fingerprint, and the tantivy document.
//! - `schema`: the index fields ([`schema()`], [`IndexFields`]); names from [`shared::fields`].
//! - `generation`: `gen-NNNNNN` directories, `CURRENT`, the lock and the atomic switch.
//! - `state`: the `url -> fingerprint` record an incremental build compares against.
//! - `build`: [`build()`], the three passes, full or incremental; `writer`: the third pass;
//!   `progress`: [`BuildProgress`], the third pass's documents for [`build_with_progress`].
//!
//! searchd opens what the last build switched to with [`open_current`], and reopens when
//! [`current_generation_marker`] changes (or the current generation commits).
//!
//! ```
//! # fn main() -> Result<(), indexer::Error> {
//! let data = tempfile::tempdir().expect("temporary directory");
//! // No index yet: searchd shows "no index" until the first build.
//! assert!(indexer::open_current(data.path())?.is_none());
//! // Building needs a content store: without one, a clear error.
//! let error = indexer::build(data.path(), indexer::BuildMode::Full).err().expect("no store");
//! assert!(error.to_string().contains("store"), "{error}");
//! assert_eq!(indexer::current_generation_marker(data.path()), data.path().join("index/CURRENT"));
//! # Ok(())
//! # }
//! ```

/// A failpoint of the fault-injection tests (`tests/e2e/faults.rs`): `fail::fail_point!`
/// with the `failpoints` feature, which only the tests package turns on; nothing otherwise.
#[cfg(feature = "failpoints")]
macro_rules! fail_point {
    ($($arg:tt)*) => {
        fail::fail_point!($($arg)*)
    };
}
/// Without the `failpoints` feature a failpoint is nothing at all.
#[cfg(not(feature = "failpoints"))]
macro_rules! fail_point {
    ($($arg:tt)*) => {};
}

mod build;
#[cfg(test)]
mod build_tests;
mod document;
mod error;
mod generation;
mod linkgraph;
mod progress;
mod schema;
mod source;
mod state;
#[cfg(test)]
mod testutil;
mod text;
pub mod tokenize;
mod writer;

use std::path::Path;

pub use build::{BuildMode, BuildSummary, build, build_with_progress};
pub use document::{DocInput, page_name, page_name_key, url_depth};
pub use error::Error;
pub use generation::{current_generation, current_generation_marker, generation_dir};
pub use linkgraph::Inbound;
pub use progress::BuildProgress;
pub use schema::{IndexFields, schema};

/// The index a reader should use now.
pub struct CurrentIndex {
    /// The tantivy index of the current generation.
    pub index: tantivy::Index,
    /// The generation's name (`gen-NNNNNN`).
    pub generation: String,
    /// Its fields.
    pub fields: IndexFields,
}

/// Opens the generation `CURRENT` names, or `None` when no index was built yet.
pub fn open_current(data: &Path) -> Result<Option<CurrentIndex>, Error> {
    let Some(generation) = current_generation(data)? else {
        return Ok(None);
    };
    let dir = generation::generation_dir(data, &generation);
    if !dir.is_dir() {
        return Err(Error::MissingGeneration(dir));
    }
    let index = tantivy::Index::open_in_dir(&dir)?;
    tokenize::register(&index);
    let fields = IndexFields::new(&index.schema())?;
    Ok(Some(CurrentIndex {
        index,
        generation,
        fields,
    }))
}

/// The newest store change number a generation holds (see
/// [`shared::PageRecord::change`]): `None` when its state is missing or of another format.
pub fn indexed_store_change(data: &Path, generation: &str) -> Option<u64> {
    state::DocState::load(&generation_dir(data, generation)).map(|state| state.store_change)
}
