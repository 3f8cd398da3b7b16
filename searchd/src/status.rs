//! `/status`: the loaded index generation and the crawl's figures, as HTML or JSON.
//!
//! JSON shape (`/status?format=json`, or `Accept: application/json`):
//! `{"generation": "gen-000003" | null, "docs": 1234, "pages_stored": 1500 | null,
//! "frontier": 0 | null}` — `null` when there is no index, or no readable store.

use serde::Serialize;
use shared::StoreReader;

use crate::search::Searcher;

/// What `/status` reports.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StatusReport {
    /// The index generation being served.
    pub generation: Option<String>,
    /// Documents in it (0 without an index).
    pub docs: u64,
    /// Pages in the content store.
    pub pages_stored: Option<u64>,
    /// URLs waiting in the crawl frontier.
    pub frontier: Option<u64>,
}

impl StatusReport {
    /// Reads the figures. Blocking (it opens the store): call it off the async threads.
    pub fn gather(searcher: &Searcher) -> Self {
        let index = searcher.index_facts();
        let counters = StoreReader::open(searcher.data())
            .and_then(|store| store.counters())
            .map_err(|error| tracing::debug!(%error, "status: store not readable"))
            .ok();
        StatusReport {
            docs: index.as_ref().map_or(0, |i| i.docs),
            generation: index.map(|i| i.generation),
            pages_stored: counters.as_ref().map(|c| c.pages_stored),
            frontier: counters.map(|c| c.frontier_len),
        }
    }

    /// The rows of the HTML page.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let or_none = |value: Option<u64>| value.map_or("—".to_string(), |v| v.to_string());
        vec![
            (
                "index generation",
                self.generation
                    .clone()
                    .unwrap_or_else(|| "none yet (run indexer build)".into()),
            ),
            ("documents indexed", self.docs.to_string()),
            ("pages stored", or_none(self.pages_stored)),
            ("frontier (URLs waiting)", or_none(self.frontier)),
        ]
    }
}
