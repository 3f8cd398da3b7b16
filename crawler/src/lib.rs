//! A polite web crawler that writes every page, its headers and its links to the RocksDB
//! content store (see `shared::store`).
//!
//! - [`crawl`]: the loop — [`Crawler::open`], then [`Crawler::run`].
//! - [`monitor`]: the JSON monitoring line the crawl logs every 5 s.
//! - [`progress`]: the progress line for people, and the live bar of `crawler crawl` at a
//!   terminal.
//! - [`page`]: what a fetch becomes in the store, and which URLs it queues.
//! - [`frontier`]: per-origin queues and the ready heap that enforces politeness.
//! - [`politeness`]: delays and concurrency per origin; [`spacing`]: the same gaps kept
//!   again at the moment each request is sent.
//! - [`robots`]: robots.txt parsing and matching; [`robots::fetch`]: fetching it.
//! - [`fetch`]: the HTTP client, conditional requests, bounded bodies.
//! - [`charset`]: bytes to UTF-8 as browsers do (BOM, header, `<meta>`, detection).
//! - [`sitemap`]: reading sitemaps (XML, indexes, gzip, plain text), bounded.
//! - [`breaker`]: circuit breakers per host (error rate over a minute, failures in a row).
//! - [`retry`]: when a failed fetch is tried again (`Retry-After`, back-off).
//! - [`revisit`]: the re-crawl schedule of stored pages.
//! - [`resolve`]: DNS with the address policy (loopback refused unless allowed).
//! - [`extract`]: links, title and robots META from HTML.
//! - [`scope`]: which URLs may be queued.
//! - [`traps`]: the trap rules that keep URLs out of the frontier (budget, loops, query caps).
//! - [`store`]: [`store::PageStore`], the store's only writer.
//! - [`cli`]: the `crawler` command line.
//! - [`inspect`]: `crawler status`, `report` and `explain`, read from the store.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use crawler::{CrawlOptions, Crawler};
//! let options = CrawlOptions {
//!     data: "crawl-data".into(),
//!     seeds: vec!["https://example.com/".into()],
//!     scope: vec![],
//!     config: shared::config::RawCrawlerConfig::default().validate()?,
//!     max_time: None,
//! };
//! let summary = Crawler::open(options)?.run(std::future::pending()).await?;
//! println!("{} pages stored", summary.pages_stored);
//! # Ok(()) }
//! ```

pub mod breaker;
pub mod charset;
pub mod cli;
pub mod crawl;
mod error;
pub mod extract;
pub mod fetch;
pub mod frontier;
pub mod inspect;
pub mod monitor;
pub mod page;
pub mod params;
pub mod politeness;
pub mod progress;
pub mod resolve;
pub mod retry;
pub mod revisit;
pub mod robots;
pub mod scope;
pub mod sitemap;
pub mod spacing;
pub mod store;
pub mod traps;

pub use crawl::{CrawlOptions, CrawlProgress, CrawlSummary, Crawler, StopReason};
pub use error::Error;
