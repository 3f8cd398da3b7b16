//! The `searchd` program beside the gateway it serves (the `gateway` crate): the demo, which
//! alone here links the crawler and the indexer, and the relevance evaluation client.
//!
//! - [`demo`]: serve a local site, crawl it, index it while the crawl runs
//!   ([`demo::live_index`]) and search it, in one command.
//! - [`eval`]: `searchd eval`, MRR@10 and more of a running server over judged queries.

#![deny(missing_docs)]

pub mod demo;
pub mod eval;
