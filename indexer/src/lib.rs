//! The indexer: turns the crawler's content store into a tantivy index that searchd serves.
//!
//! A build reads `DATA/store` read-only (a crawl may be running) and writes `DATA/index`.
//! Its modules, in the order a build uses them:
//!
//! - `source`: the store as the indexer reads it, and what kind of page each record is.
//! - `shared::docplan` (shared with `crawler explain`): which pages become documents;
//!   duplicates and pages naming another as `rel=canonical` collapse to the canonical URL,
//!   else the shortest.
//! - `template`: host templates, the text a site repeats on most of its pages, learned from
//!   a sample of each section in the first pass ([`HostTemplate`]).
//! - `linkgraph`: in-link counts from distinct pages, anchor text and the PageRank level
//!   (`linkgraph/pagerank.rs`), per document; `linkgraph/outgoing.rs`: what a machine's pages
//!   say about pages held on other machines.
//! - `text`: title, headings and visible body text of a page, boilerplate left out;
//!   `text/blocks.rs` decides each block as it ends (template, link density),
//!   `text/declared.rs` reads what the page declares of its language and translations.
//! - `document`: a document's inputs, their fingerprint, and the tantivy document;
//!   `language`: the page's language (its text first, its declarations as hints), which
//!   decides the stemming `stemmed` cuts its stemmed fields with; the page's set of
//!   translations (`hreflang`) as one key.
//! - `target`: the generation a build writes, chosen by [`BuildMode`].
//! - `build`: [`build()`], the three passes, full or incremental, over `DATA/store` or over
//!   every partition's store of a partitioned `DATA` (one index shard each, link signals
//!   and copies over all of them; `by_url` merges their outlinks in URL order);
//!   [`build_beside`]: on one thread of each kind, beside other work. `writer`: the third
//!   pass (`queued`: its documents waiting for tantivy, bounded in bytes); `progress`: [`BuildProgress`], the third pass's documents for
//!   [`build_with_progress`]; `summary`: [`BuildSummary`], what a build did (a sharded
//!   build's adds up its shards'); `error`: [`Error`], why it failed.
//! - `images`: the generation's image index (`gen-NNNNNN/images/`, `index_format::images`),
//!   one document per served image, found by the alt texts, titles, surroundings and page
//!   titles of the pages showing it and its file name; written whole at every build in one
//!   commit, into a new generation before `CURRENT` switches or in place into the current
//!   one. `images/showings.rs` inverts the store's `images` family (bounded per image, no
//!   text kept), `images/document.rs` reads each image's texts back.
//! - `completions`: the phrases `/suggest` offers (`gen-NNNNNN/completions`), read from the
//!   titles of the generation's documents after its commit: title parts by their links,
//!   runs of words frequent in titles by their documents; rewritten when a build changed
//!   something.
//! - `exchange`: [`build_exchanging`] with an [`Exchange`] (`indexer build --redis`), on one
//!   machine of several holding a crawl's partitions: link contributions sent to the other
//!   machines' partitions and received from them through Redis, in a round with barriers, so
//!   every shard gets its pages' global in-links and anchors (`exchange/round.rs` the round,
//!   `exchange/parcel.rs` what is sent, `exchange/connection.rs` the connection); `held`:
//!   which partitions of the crawl a `DATA` holds (a warning names the others when built
//!   without `--redis`).
//!
//! `main.rs` is the `indexer` binary (it draws the write pass's bar). Tests build from a real
//! store written as the crawler writes it (`testutil`): `build_tests`, `rendered_tests`
//! (pages rendered in a browser), `sharded_tests`, `images/tests.rs`,
//! `linkgraph/split_tests.rs` (a link graph split over machines against one),
//! `text/chrome_tests.rs` (page chrome, on the layouts of `text/fixtures/`); the exchange's
//! against a `redis-server` of their own (`exchange/test_redis.rs`).
//!
//! What it writes is the index's contract, the `index_format` crate: the fields and schema,
//! the tokenizers, the generations and `CURRENT` (written atomically at the end of a build),
//! and the `state.json` an incremental build compares against. searchd opens what the last
//! build switched to with `index_format::open_current`.
//!
//! ```
//! # fn main() -> Result<(), indexer::Error> {
//! let data = tempfile::tempdir().expect("temporary directory");
//! // Building needs a content store: without one, a clear error.
//! let error = indexer::build(data.path(), indexer::BuildMode::Full).err().expect("no store");
//! assert!(error.to_string().contains("store"), "{error}");
//! assert!(index_format::open_current(data.path())?.is_none(), "nothing was built");
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod build;
#[cfg(test)]
mod build_tests;
mod by_url;
pub mod cli;
mod completions;
mod document;
mod error;
mod exchange;
mod held;
mod images;
mod language;
mod linkgraph;
mod progress;
mod queued;
#[cfg(test)]
mod rendered_tests;
#[cfg(test)]
mod sharded_tests;
mod source;
mod stemmed;
mod summary;
mod target;
mod template;
#[cfg(test)]
mod testutil;
mod text;
mod writer;

pub use build::{
    DEFAULT_ANCHOR_BUDGET, Links, build, build_beside, build_exchanging, build_with_progress,
};
pub use completions::write as write_completions;
pub use document::{DocHtml, DocInput};
pub use error::Error;
pub use exchange::{DEFAULT_BUDGET, DEFAULT_DEADLINE, Exchange};
pub use linkgraph::Inbound;
pub use progress::BuildProgress;
pub use stemmed::Analyzers;
pub use summary::{BuildSummary, ExchangeSummary};
pub use target::BuildMode;
pub use text::HostTemplate;
pub use writer::{DEFAULT_WRITER_BUDGET, MIN_WRITER_BUDGET};
