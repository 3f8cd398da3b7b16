//! The index's contract: what the indexer writes and searchd reads, and nothing else.
//!
//! - [`fields`]: the field names; [`schema()`] and [`IndexFields`]: the tantivy schema and
//!   handles on its fields.
//! - [`tokenize`]: the tokenizers of the text fields ([`tokenize::register`] on every index
//!   opened), and the word spans snippets are cut at.
//! - [`language`]: the languages a page is found in, and the stemming each gets.
//! - [`stop_words`]: each language's stop words, which completions and similar pages leave
//!   out.
//! - [`url_fields`]: the fields read from a page's URL (its name, its depth), which the
//!   indexer writes and the gateway folds results by.
//! - [`generation`]: `DATA/index/gen-NNNNNN/` directories, the `CURRENT` file naming the one
//!   in use, the build lock and the atomic switch.
//! - [`DocState`]: what a generation holds (`state.json`), for incremental builds and for
//!   [`indexed_store_change`].
//! - [`open_current`]: the reader's open path.
//! - [`completions`]: the phrases `/suggest` offers (`gen-NNNNNN/completions`), two FSTs
//!   that answer any prefix with a bounded read.
//! - [`image_schema()`] and [`ImageFields`]: the image index, `gen-NNNNNN/images/`
//!   ([`images_dir`]), one document per stored image.
//!
//! searchd depends on this crate and not on the indexer: serving never writes an index.
//!
//! ```
//! # fn main() -> Result<(), index_format::Error> {
//! let data = tempfile::tempdir().expect("temporary directory");
//! // No index yet: searchd shows "no index" until the first build.
//! assert!(index_format::open_current(data.path())?.is_none());
//! assert_eq!(
//!     index_format::current_generation_marker(data.path()),
//!     data.path().join("index/CURRENT")
//! );
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

/// A failpoint (the `fail` crate's) at a step the fault-injection tests interrupt; nothing
/// unless this crate is built with `failpoints`. The contract's own, so that it needs no
/// other crate of the workspace. Defined before the modules, so each of them sees it.
macro_rules! fail_point {
    ($($arg:tt)*) => {
        #[cfg(feature = "failpoints")]
        fail::fail_point!($($arg)*);
    };
}

pub mod completions;
mod error;
pub mod fields;
pub mod generation;
mod images;
pub mod language;
mod open;
mod schema;
mod state;
pub mod stop_words;
pub mod tokenize;
pub mod url_fields;

pub use error::Error;
pub use generation::{current_generation, current_generation_marker, generation_dir};
pub use images::{ImageFields, image_fields, image_schema, images_dir};
pub use open::{CurrentIndex, indexed_store_change, open_current};
pub use schema::{BODY_START_BYTES, EXACT_TOKENIZER, IndexFields, TOKENIZER, schema};
pub use state::DocState;

/// The version of what a document is made of. Bump it when extraction or the document
/// layout changes: every document is then re-indexed, and a generation written by another
/// version is never updated in place (see [`DocState`]).
pub const FORMAT_VERSION: u32 = 19;
