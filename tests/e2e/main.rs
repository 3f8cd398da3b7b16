//! End-to-end tests: the real crawler, indexer and searchd against the local test web
//! (`testweb`, one server answering for many `*.test` virtual hosts on loopback).
//!
//! Table of contents:
//! - [`crawl`]: a crawl of the sample site obeys robots.txt, stores each allowed page once,
//!   honours noindex/nofollow, sends the robot's headers; robots.txt status variants;
//!   redirects; the address policy.
//! - [`robot_http`]: robots.txt 401 and its cache lifetime, redirect chains into disallowed
//!   paths, meta refresh, sitemaps, legacy charsets, retries and `Retry-After`, re-crawls with
//!   conditional requests.
//! - [`cluster`]: the distributed crawl (`crawler worker`) against a real `redis-server`:
//!   one worker and three store the same pages once each, politely across workers.
//! - [`resume`]: a crawl killed with SIGKILL midway and started again ends with the same
//!   pages and fetches nothing it had stored.
//! - [`faults`]: faults lose nothing: errors and crashes at failpoints of a page commit, a
//!   sitemap, a revisit and a generation switch (in child processes), a full disk (a tmpfs,
//!   as root), a store another crawler holds, corrupt records, an index removed under
//!   searchd: a clear error or an answer, never a panic, and the next run finishes the work.
//! - [`dates`]: each page's published and modified dates from JSON-LD, article meta tags,
//!   `<time>` in the content, its URL, `Last-Modified`, in that order of trust, implausible
//!   ones passed over; shown by `crawler explain` with their sources, and in results.
//! - [`languages`]: pages in many languages: each told by its text, found by other forms
//!   of its words in its language, accents optional (the exact spelling first), `lang:`,
//!   the language facet, translations folded into the browser's language, scripts without a
//!   stemmer as written; a `<noscript>` refresh is no redirect.
//! - [`ranking`]: the index never holds noindex pages; more in-links rank higher; copies are
//!   one result, under their `rel=canonical` URL.
//! - [`stalls`]: a hanging URL goes behind its host's other pages and costs a short pause;
//!   drips, trickles, big bodies and decompression bombs are cut off with their reasons.
//! - [`traps`]: endless calendars, repeating paths and faceted search stay within the trap
//!   rules (host budget, repeated segments, query-string cap).
//! - [`soak`]: the crawler killed with SIGKILL again and again against a web of many hosts
//!   (slow, failing, huge, traps), then run to its end: every reachable page stored once,
//!   nothing stored fetched again, every politeness gap held, memory sampled (a CI version of
//!   seconds; the hour-long one is ignored and run by `bench/soak`).
//! - [`images`]: images as a content kind: fetched under robots.txt, measured by their bytes,
//!   thumbnailed once per content, hostile ones stored without decoding; none with images off.
//!   Indexed, found by the alt texts, surroundings and titles of the pages showing them.
//! - [`pdfs`]: PDFs as a content kind: read in a child process whatever the server calls
//!   them, hostile ones stored with their status, their text searchable and shown as PDF.
//! - [`render`]: pages built by scripts, rendered in headless Chromium: links only scripts
//!   write followed and their text searched; from the server's log, nothing robots.txt
//!   forbids or of a type not fetched asked for, the per-page cap and the delay kept, the
//!   endless script cut off; no browser left after `kill -9` of the crawler; a router
//!   app's routes, one shell each, a document each when rendered, one without; `auto`'s
//!   verdict kept for the next run.
//! - [`serve`]: searchd's HTML and JSON answers over a real socket.
//! - [`services`]: the systemd units verify without a warning and are hardened; SIGTERM
//!   stops a crawl as Ctrl-C does.
//! - [`metrics`]: a real Prometheus scrapes searchd and a crawl worker (both up, counters
//!   growing); the worker's `/metrics` passes promtool and counts every fetch; its `/readyz`
//!   through starting, crawling, Redis away and back, stopped; a worker without a lease is
//!   not ready.
//! - [`shards`]: the test web crawled into one store and into partitions, indexed: shards in
//!   one process and a root with a `searchd leaf` over HTTP give one index's results and
//!   scores; a leaf that is down leaves the answer partial.
//! - [`replicas`]: a root over two `searchd leaf` processes holding the same 4 shards, under
//!   load from several clients: one killed with SIGKILL midway, no answer partial, every
//!   answer the one given with both up.
//! - [`index_exchange`]: the indexer across machines: partitions split over two data
//!   directories, built at once exchanging link contributions through Redis, give every
//!   shard the in-links and anchor words one machine's build gives; the round leaves no keys.
//! - [`demo`]: `searchd demo` over the sample site's directory: the crawl stores what a
//!   crawl through the test web stores, search answers from its index, result links work.
//! - [`query_fuzz`]: thousands of random queries (operators, field names, control and bidi
//!   characters, broken percent escapes, odd paging) over HTTP: never a 5xx, always in time,
//!   the JSON contract or a JSON error.
//! - [`browser`]: headless Chromium through chromedriver: search from the home page, ranked
//!   results, a hostile page's title shown as text and its cached copy running no script.
//! - [`fuzz_corpus`]: every committed fuzz corpus file through its fuzz target's body (the
//!   parsers of robots.txt, HTML, links, URLs, sitemaps, charsets, queries and config).
//! - [`tidy`]: the layout's rules on the source: no file over 700 lines before its tests, no
//!   two files of a crate that use each other, no writer linked by the serving crates.
//! - [`warc`]: WARC in and out: a crawl exported and imported afresh holds and searches the
//!   same; warcio checks and indexes our export; wget's WARC of the sample site is imported
//!   and searched; hostile files (bad lengths, a truncated gzip member, a record over the
//!   limit, no WARC) are reported and skipped, the rest imported.
//! - [`sends`]: when the crawler let each request go, from its `crawler::sent` events: read
//!   from a child's log, or captured from in-process crawlers on a runtime of their own.
//! - [`support`]: shared set-up: configs with the test web's resolve table, running the
//!   programs.

mod browser;
mod cluster;
mod crawl;
mod dates;
mod demo;
mod faults;
mod fuzz_corpus;
mod image_search;
mod images;
mod index_exchange;
mod languages;
mod metrics;
mod pdfs;
mod query_fuzz;
mod ranking;
mod render;
mod replicas;
mod resume;
mod robot_http;
mod sends;
mod serve;
mod services;
mod shards;
mod soak;
mod stalls;
mod support;
mod tidy;
mod traps;
mod warc;
