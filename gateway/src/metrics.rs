//! searchd's Prometheus metrics, served at `/metrics` by a root and by a leaf (the names are a
//! contract: the README lists them):
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `searchd_http_requests_total` | `route`, `status` | requests answered |
//! | `searchd_http_request_duration_seconds` | `route` | arrival to answer |
//! | `searchd_queries_total` | | searches answered (pages and API, not images) |
//! | `searchd_query_duration_seconds` | | a search's time, as `took_ms` says |
//! | `searchd_queries_without_results_total` | | searches that found nothing |
//! | `searchd_query_tier_fallbacks_total` | | searches that fell back to pages with most words |
//! | `searchd_spelling_suggestions_total` | | searches answered with a "did you mean" |
//! | `searchd_answer_cache_lookups_total` | `result` (`hit`, `miss`) | the kept answers asked |
//! | `searchd_leaf_request_duration_seconds` | `leaf` | a root's calls to a remote leaf |
//! | `searchd_leaf_failures_total` | `leaf` | calls that failed, answered non-2xx or late |
//! | `searchd_index_generation` | `shard` | the generation number loaded |
//! | `searchd_index_documents` | `shard` | documents in it |
//! | `searchd_index_bytes` | `shard` | its files' size on disk |
//!
//! Label values are bounded by the server, never by a client: `route` is one of the routes
//! (`other` for any other path), `status` a status code, `leaf` an address from the command
//! line, `shard` a partition directory's name (`p-NNN`) or `index`.

use std::path::Path;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use service::metrics::{HttpMetrics, LatencyFamily, latency_family, latency_histogram};

use crate::leaf::LocalShards;
use crate::results::SearchResults;
use crate::shard::generation_files;

/// Every metric of one server, registered once.
pub struct GatewayMetrics {
    registry: Registry,
    /// Requests by route and status.
    pub(crate) http: HttpMetrics,
    /// Searches.
    pub(crate) search: SearchMetrics,
    /// The loaded index, per shard.
    index: IndexGauges,
}

impl GatewayMetrics {
    /// The metrics of a server whose routes are named by `route_of`.
    pub fn new(route_of: fn(&str) -> &'static str) -> Self {
        let mut registry = Registry::with_prefix("searchd");
        let http = HttpMetrics::new(&mut registry, route_of);
        let search = SearchMetrics::registered(&mut registry);
        let index = IndexGauges::registered(&mut registry);
        Self {
            registry,
            http,
            search,
            index,
        }
    }

    /// The registry, for `/metrics`.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Sets the index gauges from the shards loaded now.
    pub(crate) fn observe_index(&self, local: &LocalShards) {
        for shard in local.shards() {
            let labels = ShardLabels {
                shard: shard_name(shard.data()),
            };
            let Some(loaded) = shard.current() else {
                continue;
            };
            let number = loaded
                .generation
                .trim_start_matches("gen-")
                .parse::<i64>()
                .unwrap_or(0);
            self.index.generation.get_or_create(&labels).set(number);
            let docs = loaded.reader.searcher().num_docs();
            self.index
                .documents
                .get_or_create(&labels)
                .set(i64::try_from(docs).unwrap_or(i64::MAX));
            let dir = index_format::generation_dir(shard.data(), &loaded.generation);
            self.index
                .bytes
                .get_or_create(&labels)
                .set(i64::try_from(generation_files(&dir).bytes).unwrap_or(i64::MAX));
        }
    }
}

/// The name of the route a path asks for, as metrics label it: one of the routes of a root
/// or a leaf, `other` for any other path (so no client adds a label value).
pub(crate) fn route_of(path: &str) -> &'static str {
    const ROUTES: [&str; 23] = [
        "/",
        "/search",
        "/api/search",
        "/images",
        "/api/images",
        "/cache",
        "/explain",
        "/status",
        "/opensearch.xml",
        "/suggest",
        "/similar",
        "/api/similar",
        "/metrics",
        "/healthz",
        "/readyz",
        "/leaf/stats",
        "/leaf/top",
        "/leaf/hits",
        "/leaf/document",
        "/leaf/cache",
        "/leaf/complete",
        "/leaf/terms",
        "/leaf/status",
    ];
    if path.starts_with("/thumb/") {
        return "/thumb";
    }
    ROUTES
        .iter()
        .find(|route| **route == path)
        .copied()
        .unwrap_or("other")
}

/// A shard's label: its partition directory's name, or `index` for a single index.
fn shard_name(data: &Path) -> String {
    let in_partitions = data
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == "partitions");
    match data.file_name() {
        Some(name) if in_partitions => name.to_string_lossy().into_owned(),
        _ => "index".into(),
    }
}

/// A shard's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ShardLabels {
    shard: String,
}

/// The loaded index's gauges.
struct IndexGauges {
    generation: Family<ShardLabels, Gauge>,
    documents: Family<ShardLabels, Gauge>,
    bytes: Family<ShardLabels, Gauge>,
}

impl IndexGauges {
    fn registered(registry: &mut Registry) -> Self {
        let gauges = Self {
            generation: Family::default(),
            documents: Family::default(),
            bytes: Family::default(),
        };
        registry.register(
            "index_generation",
            "The number of the index generation loaded, by shard",
            gauges.generation.clone(),
        );
        registry.register(
            "index_documents",
            "Documents in the loaded index generation, by shard",
            gauges.documents.clone(),
        );
        registry.register_with_unit(
            "index",
            "Size on disk of the loaded index generation, by shard",
            Unit::Bytes,
            gauges.bytes.clone(),
        );
        gauges
    }
}

/// The lookup of a kept answer.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LookupLabels {
    result: &'static str,
}

/// A remote leaf's label: its address as the command line gave it.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LeafLabels {
    leaf: String,
}

/// What searches and calls to leaves count. Cloned into the [`crate::Searcher`] and its
/// remote leaves; unregistered (the default), it counts for nobody.
#[derive(Clone, Debug)]
pub(crate) struct SearchMetrics {
    queries: Counter,
    durations: Histogram,
    without_results: Counter,
    tier_fallbacks: Counter,
    suggestions: Counter,
    answer_cache: Family<LookupLabels, Counter>,
    leaf_durations: LatencyFamily<LeafLabels>,
    leaf_failures: Family<LeafLabels, Counter>,
}

impl Default for SearchMetrics {
    fn default() -> Self {
        Self {
            queries: Counter::default(),
            durations: latency_histogram(),
            without_results: Counter::default(),
            tier_fallbacks: Counter::default(),
            suggestions: Counter::default(),
            answer_cache: Family::default(),
            leaf_durations: latency_family(),
            leaf_failures: Family::default(),
        }
    }
}

impl SearchMetrics {
    fn registered(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        registry.register(
            "queries",
            "Searches answered (result pages and the JSON API)",
            metrics.queries.clone(),
        );
        registry.register_with_unit(
            "query_duration",
            "Time to answer a search",
            Unit::Seconds,
            metrics.durations.clone(),
        );
        registry.register(
            "queries_without_results",
            "Searches that found no page",
            metrics.without_results.clone(),
        );
        registry.register(
            "query_tier_fallbacks",
            "Searches where few pages had every word, answered with pages having most of them",
            metrics.tier_fallbacks.clone(),
        );
        registry.register(
            "spelling_suggestions",
            "Searches answered with a spelling suggestion",
            metrics.suggestions.clone(),
        );
        registry.register(
            "answer_cache_lookups",
            "Kept answers of recent searches asked for, by result (hit, miss)",
            metrics.answer_cache.clone(),
        );
        registry.register_with_unit(
            "leaf_request_duration",
            "Time of a root's calls to a remote leaf, by leaf",
            Unit::Seconds,
            metrics.leaf_durations.clone(),
        );
        registry.register(
            "leaf_failures",
            "Calls to a remote leaf that failed, answered other than 2xx or came late, by leaf",
            metrics.leaf_failures.clone(),
        );
        metrics
    }

    /// Counts an answered search (one with something to search for).
    pub(crate) fn searched(&self, results: &SearchResults) {
        if results.nothing_to_search {
            return;
        }
        self.queries.inc();
        self.durations.observe(results.took_ms / 1000.0);
        if results.total == 0 && results.hits.is_empty() {
            self.without_results.inc();
        }
        if results.looser_tiers {
            self.tier_fallbacks.inc();
        }
        if results.suggestion.is_some() {
            self.suggestions.inc();
        }
    }

    /// Counts a lookup of the kept answers.
    pub(crate) fn answer_cache(&self, hit: bool) {
        let result = if hit { "hit" } else { "miss" };
        self.answer_cache
            .get_or_create(&LookupLabels { result })
            .inc();
    }

    /// Counts a call to the leaf at `leaf` that took `took`, failed or not.
    pub(crate) fn leaf_call(&self, leaf: &str, took: Duration, failed: bool) {
        let labels = LeafLabels { leaf: leaf.into() };
        self.leaf_durations
            .get_or_create(&labels)
            .observe(took.as_secs_f64());
        if failed {
            self.leaf_failures.get_or_create(&labels).inc();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_named_by_their_partition_or_index() {
        assert_eq!(shard_name(Path::new("/srv/sift")), "index");
        assert_eq!(shard_name(Path::new("/srv/sift/partitions/p-007")), "p-007");
    }
}
