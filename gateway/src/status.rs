//! `/status`: the loaded index generation and the crawl's figures, as HTML or JSON.
//!
//! JSON shape (`/status?format=json`, or `Accept: application/json`):
//! `{"generation": "gen-000003" | null, "docs": 1234, "index_bytes": 5600000 | null,
//! "last_commit": "2026-11-23T07:10:02Z" | null, "pages_stored": 1500 | null,
//! "frontier": 0 | null, "store_change": 1620 | null, "indexed_change": 1580 | null,
//! "unindexed_writes": 40 | null, "leaves": [{"group": "URL1|URL2", "replicas": [{"url",
//! "state": "up" | "down" | "unknown", "failure": null | "why", "outstanding": 0,
//! "p95_ms": 3.1 | null}]}]}` — `null` when there is no index, or no readable store;
//! `leaves` lists the root's groups of remote leaves (`[]` without), each replica's state as
//! the root sees it (its last call or probe, calls under way, recent p95).
//! Every page write in the store gets the next change number; the index remembers the newest
//! it holds, so their difference is the page writes the next build will pick up. The store
//! is opened read-only, so a running crawl is not disturbed.

use serde::Serialize;
use shared::StoreReader;

use crate::replicas::GroupState;
use crate::search::Searcher;
use crate::shard::generation_files;

/// What `/status` reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StatusReport {
    /// The index generation being served.
    pub generation: Option<String>,
    /// Documents in it (0 without an index).
    pub docs: u64,
    /// Its size on disk, in bytes.
    pub index_bytes: Option<u64>,
    /// When its last build committed (RFC 3339).
    pub last_commit: Option<String>,
    /// Pages in the content store.
    pub pages_stored: Option<u64>,
    /// URLs waiting in the crawl frontier.
    pub frontier: Option<u64>,
    /// The store's newest page change number (page writes so far).
    pub store_change: Option<u64>,
    /// The newest change number the served index holds.
    pub indexed_change: Option<u64>,
    /// Page writes since the served index was built: what the next build picks up.
    pub unindexed_writes: Option<u64>,
    /// The remote leaves' groups and each replica's state.
    pub leaves: Vec<GroupState>,
}

impl StatusReport {
    /// Reads the figures. Blocking (it opens the store): call it off the async threads.
    /// Over a partitioned data directory, each figure is the sum over the partitions (the
    /// change numbers too, so their difference is still the page writes not yet indexed),
    /// and `generation` names each shard's.
    pub fn gather(searcher: &Searcher) -> Self {
        let mut report = StatusReport {
            generation: searcher.index_facts().map(|facts| facts.generation),
            leaves: searcher
                .leaves()
                .iter()
                .map(|group| group.state())
                .collect(),
            ..StatusReport::default()
        };
        for dir in searcher.data_dirs() {
            report.add(&Self::of_shard(searcher, &dir));
        }
        report
    }

    /// The figures of one shard's data directory.
    fn of_shard(searcher: &Searcher, dir: &std::path::Path) -> Self {
        let index = searcher.facts_of(dir);
        let counters = StoreReader::open(dir)
            .and_then(|store| store.counters())
            .map_err(|error| tracing::debug!(%error, "status: store not readable"))
            .ok();
        let files = index
            .as_ref()
            .map(|i| generation_files(&index_format::generation_dir(dir, &i.generation)));
        let store_change = counters.as_ref().map(|c| c.last_change());
        let indexed_change = index
            .as_ref()
            .and_then(|i| index_format::indexed_store_change(dir, &i.generation));
        StatusReport {
            docs: index.as_ref().map_or(0, |i| i.docs),
            generation: index.map(|i| i.generation),
            index_bytes: files.as_ref().map(|f| f.bytes),
            last_commit: files
                .and_then(|f| f.last_commit)
                .map(shared::format_time_ms),
            pages_stored: counters.as_ref().map(|c| c.pages_stored),
            frontier: counters.map(|c| c.frontier_len),
            store_change,
            indexed_change,
            unindexed_writes: store_change
                .zip(indexed_change)
                .map(|(store, index)| store.saturating_sub(index)),
            leaves: Vec::new(),
        }
    }

    /// Adds a shard's figures (the generation name is the caller's).
    fn add(&mut self, shard: &StatusReport) {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.docs += shard.docs;
        self.index_bytes = sum(self.index_bytes, shard.index_bytes);
        // RFC 3339 in one time zone: the text order is the time order.
        self.last_commit = self.last_commit.clone().max(shard.last_commit.clone());
        self.pages_stored = sum(self.pages_stored, shard.pages_stored);
        self.frontier = sum(self.frontier, shard.frontier);
        self.store_change = sum(self.store_change, shard.store_change);
        self.indexed_change = sum(self.indexed_change, shard.indexed_change);
        self.unindexed_writes = sum(self.unindexed_writes, shard.unindexed_writes);
    }

    /// The rows of the HTML page.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let or_none = |value: Option<u64>| value.map_or("—".to_string(), |v| v.to_string());
        let mut rows = vec![
            (
                "index generation",
                self.generation
                    .clone()
                    .unwrap_or_else(|| "none yet (run indexer build)".into()),
            ),
            ("documents indexed", self.docs.to_string()),
            (
                "index size",
                self.index_bytes
                    .map_or("—".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6)),
            ),
            (
                "last build",
                self.last_commit.clone().unwrap_or_else(|| "—".into()),
            ),
            ("pages stored", or_none(self.pages_stored)),
            ("frontier (URLs waiting)", or_none(self.frontier)),
            (
                "page writes not yet indexed",
                or_none(self.unindexed_writes),
            ),
        ];
        for group in &self.leaves {
            for replica in &group.replicas {
                rows.push((
                    "remote leaf",
                    format!("{} of {}", replica.said(), group.group),
                ));
            }
        }
        rows
    }
}
