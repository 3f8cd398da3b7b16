//! A polite web crawler that writes every page, its headers and its links to the RocksDB
//! content store (see `shared::store`).
//!
//! The surface is what other crates use: [`Crawler`] and its options and results; the
//! store's writer [`PageStore`]; the frontier and politeness types the scale bench drives
//! ([`Frontier`], [`Politeness`]); the robots policy ([`RobotsPolicy`]); the command line
//! ([`cli`]) and its read-only reports ([`inspect`]); the progress line ([`progress`]); the
//! readers of what hosts send, which the fuzz targets drive ([`charset`], [`extract`],
//! [`sitemap`]; images and PDFs are read by the `image-reader` and `pdf-reader` crates).
//! Every other module is private; the tour, by folder and file:
//!
//! - `crawl`: the loop ([`Crawler::open`], then [`Crawler::run`]); `crawl/job.rs` what a fetch
//!   task runs, `crawl/rendering.rs` a page's render in its fetch task, `crawl/partition.rs`
//!   a partition's role in a distributed crawl, `crawl/robots_state.rs` the loop's glue for
//!   robots.txt.
//! - `monitor`: the JSON monitoring line the crawl logs every 5 s; [`metrics`]: the same
//!   figures for Prometheus (`--metrics-listen`), their names listed in its docs.
//! - [`progress`]: the progress line for people (`progress/line.rs`), and the live bar of
//!   `crawler crawl` at a terminal (`progress/bar.rs`).
//! - `page`: what a fetch becomes in the store, and which URLs it queues.
//! - `frontier`: per-origin queues and the ready heap that enforces politeness.
//! - `politeness`: delays and concurrency per origin and per address (`settings.rs`), the
//!   frontier's requests per address (`address_slots.rs`), the same gaps kept again at the
//!   moment each request is sent (`send_gate.rs`), turns booked across workers
//!   (`shared_turns.rs`).
//! - `robots_fetch`: fetching robots.txt, its cache, and reading its body as fetched
//!   ([`robots_policy_of_body`]); parsing and matching are the `robots` crate's; the decision
//!   table (`robots_fetch/cases.rs`) runs through this reading (`robots_fetch/reading_tests.rs`).
//! - `fetch`: the HTTP client, conditional requests, bounded bodies; its deadlines
//!   (`fetch/deadlines.rs`).
//! - `kind`: content kinds as plug-ins, one reader per kind (`kind/html.rs`, `kind/image.rs`,
//!   `kind/pdf.rs`; `kind/sniff.rs` the signatures): media types, `Accept`, sniffing, body
//!   limits, and the bounded read of a body into records.
//! - [`charset`]: bytes to UTF-8 as browsers do (BOM, header, `<meta>`, detection).
//! - [`sitemap`]: reading sitemaps (XML, indexes, gzip, plain text), bounded; and which the
//!   crawl queues and what a fetched one adds (`sitemap/intake.rs`).
//! - `breaker`: circuit breakers per host (error rate over a minute, failures in a row).
//! - `retry`: when a failed fetch is tried again (`Retry-After`, back-off).
//! - `revisit`: the re-crawl schedule of stored pages.
//! - `resolve`: DNS with the address policy (loopback refused unless allowed).
//! - `render`: opt-in rendering in headless Chromium, started by the crawler with no
//!   network of its own; every request a page makes answered by the crawler's fetcher
//!   (`render/network.rs`, with `render/reply.rs` the answer and `render/cache.rs` the
//!   scripts and style sheets kept for the run), one page per tab to a deadline
//!   (`render/page.rs`), the browser over its pipe (`render/cdp.rs`, `render/browser.rs`),
//!   why a browser is replaced (`render/retirement.rs`), `auto` hosts' sample
//!   (`render/auto.rs`).
//! - [`extract`]: links, title and robots META from HTML (in `shared`, which searchd's
//!   `/explain` reads pages by too).
//! - `scope`: which URLs may be queued; `params`: the query parameters stripped.
//! - `traps`: the trap rules that keep URLs out of the frontier (budget, loops, query caps).
//! - `store`: [`PageStore`], the store's only writer, one file per job: `store/commit.rs` a
//!   page's batch, `queue.rs` the frontier's persistent half, `admission.rs` the counted trap
//!   rules, `near.rs` duplicate lookups, `revisits.rs`, `hosts.rs` (halts, the robots cache,
//!   `auto`'s verdicts), `partition.rs` a partition's outbox, applied marks and fence.
//! - [`cluster`]: `crawler worker`, the crawl over several workers through Redis (its own
//!   tour in its `//!`).
//! - [`cli`]: the `crawler` command line; `error`: the crawler's errors.
//! - [`inspect`]: `crawler status`, `report` and `explain`, read from the store or from
//!   every partition's (`inspect/stores.rs`), `inspect/rendered.rs` a rendered page beside
//!   the static one, `inspect/language.rs` the language the index gave a page.
//! - [`archive`]: `crawler export` and `crawler import`, the store to and from WARC files
//!   read and written by the `warc` crate (`archive/http.rs` an archived answer,
//!   `export.rs`, `import.rs`, `problem.rs` a record skipped).
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
//!     pdf_child: None,
//! };
//! let summary = Crawler::open(options)?.run(std::future::pending()).await?;
//! println!("{} pages stored", summary.pages_stored);
//! # Ok(()) }
//! ```

#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod archive;
pub mod charset;
pub mod cli;
pub mod cluster;
pub use shared::extract;
pub mod inspect;
pub mod progress;
pub mod sitemap;

mod breaker;
mod crawl;
mod error;
mod fetch;
mod frontier;
mod kind;
pub mod metrics;
mod monitor;
mod page;
mod params;
mod politeness;
mod render;
mod resolve;
mod retry;
mod revisit;
mod robots_fetch;
mod scope;
mod store;
mod traps;

pub use crawl::{CrawlOptions, CrawlProgress, CrawlSummary, Crawler, StopReason};
pub use error::Error;
pub use frontier::{Frontier, Job, RobotsState};
pub use politeness::Politeness;
pub use robots::{Refusal, RobotsPolicy};
pub use robots_fetch::policy_of_body as robots_policy_of_body;
pub use store::PageStore;
