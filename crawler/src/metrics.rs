//! The crawler's Prometheus metrics, served by `crawler crawl|worker --metrics-listen ADDR`
//! (see `service::listen`). The names are a contract; the README lists them:
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `crawler_fetches_total` | `kind`, `class` | requests for pages, images, PDFs and sitemaps, by answer |
//! | `crawler_fetched_bytes_total` | `kind` | their bodies' bytes as read |
//! | `crawler_fetch_duration_seconds` | | request sent to answer read |
//! | `crawler_robots_fetches_total` | `outcome` | robots.txt fetches, by what they allowed |
//! | `crawler_politeness_waits_total` | | requests that waited (1 ms or more) for their host's or address's gap |
//! | `crawler_politeness_wait_seconds_total` | | the time they waited |
//! | `crawler_trap_cuts_total` | `rule` | URLs kept out by each trap rule |
//! | `crawler_renders_total` | `outcome` | pages run in the browser, rendered or not |
//! | `crawler_browser_replacements_total` | | browsers replaced (page count, memory, failure) |
//! | `crawler_store_page_writes_total` | | pages written to the store (one batch each) |
//! | `crawler_frontier_urls` | | URLs waiting in the frontier |
//! | `crawler_hosts` | `state` | hosts by state (`active`, `idle`, `paused`, `robots`, `parked`, `halted`) |
//! | `crawler_partitions_held` | | a worker's leases |
//! | `crawler_link_stream_backlog` | | links for its partitions in Redis, not yet applied |
//! | `crawler_redis_commands_total` | | commands a worker sent to Redis |
//!
//! Label values are the crawler's own words: `kind` is `html`, `image`, `pdf`, `sitemap` or
//! `none` (a body not kept), `class` a status class (`2xx` ... `5xx`) or `failed` (no answer),
//! `outcome` and `state` fixed lists, `rule` a trap rule's name. No label carries a URL or a
//! host: a crawl of a million hosts has as many series as a crawl of one.
//!
//! Beside them, what `/readyz` answers: a crawl is ready once it runs; a worker while Redis
//! answers its beats and it holds a lease (else why not, in one line).
//!
//! One [`CrawlMetrics`] serves a whole process: a worker's partitions each run a crawl that
//! counts into it, and each crawl's share of a gauge (`GaugeShare`) is added and taken back,
//! so the gauges are the worker's totals.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};
use service::health::Readiness;
use shared::record::RenderOutcome;

/// A fetch's labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FetchLabels {
    kind: &'static str,
    class: &'static str,
}

/// A kind's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

/// An outcome's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: &'static str,
}

/// A host state's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

/// A trap rule's label.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RuleLabels {
    rule: &'static str,
}

/// The states a host is counted in, as [`crate::Frontier::host_view`] names them: requests
/// to make now, nothing queued, paused by its breaker or a back-off, its robots.txt being
/// fetched or waited for, refused by the address policy, halted by its breaker.
pub(crate) const HOST_STATES: [&str; 6] =
    ["active", "idle", "paused", "robots", "parked", "halted"];

/// Every metric of a crawling process. Cloning shares them; the default is registered
/// nowhere (a crawl without `--metrics-listen` counts for nobody).
#[derive(Clone, Debug)]
pub struct CrawlMetrics {
    fetches: Family<FetchLabels, Counter>,
    bytes: Family<KindLabels, Counter>,
    durations: Histogram,
    robots: Family<OutcomeLabels, Counter>,
    waits: Counter,
    waited: Counter<f64>,
    traps: Family<RuleLabels, Counter>,
    renders: Family<OutcomeLabels, Counter>,
    replacements: Counter,
    page_writes: Counter,
    frontier: Gauge,
    hosts: Family<StateLabels, Gauge>,
    partitions_held: Gauge,
    backlog: Gauge,
    redis_commands: Counter,
    /// The worker's commands to Redis counted so far (its connection counts them all).
    redis_counted: Arc<AtomicU64>,
    /// What `/readyz` answers.
    ready: Arc<Mutex<Readiness>>,
}

impl Default for CrawlMetrics {
    fn default() -> Self {
        Self {
            fetches: Family::default(),
            bytes: Family::default(),
            durations: service::metrics::latency_histogram(),
            robots: Family::default(),
            waits: Counter::default(),
            waited: Counter::default(),
            traps: Family::default(),
            renders: Family::default(),
            replacements: Counter::default(),
            page_writes: Counter::default(),
            frontier: Gauge::default(),
            hosts: Family::default(),
            partitions_held: Gauge::default(),
            backlog: Gauge::default(),
            redis_commands: Counter::default(),
            redis_counted: Arc::new(AtomicU64::new(0)),
            ready: Arc::new(Mutex::new(Readiness::NotReady("starting".into()))),
        }
    }
}

impl CrawlMetrics {
    /// The metrics, registered in `registry` (prefix `crawler_`).
    pub fn registered(registry: &mut Registry) -> Self {
        let metrics = Self::default();
        let r = registry;
        r.register(
            "fetches",
            "Requests for pages, images, PDFs and sitemaps, by kind and answer class",
            metrics.fetches.clone(),
        );
        r.register_with_unit(
            "fetched",
            "Body bytes read, by kind",
            Unit::Bytes,
            metrics.bytes.clone(),
        );
        r.register_with_unit(
            "fetch_duration",
            "Time from a request sent to its answer read",
            Unit::Seconds,
            metrics.durations.clone(),
        );
        r.register(
            "robots_fetches",
            "robots.txt fetches, by outcome (rules, no_rules, forbidden, unavailable, refused)",
            metrics.robots.clone(),
        );
        r.register(
            "politeness_waits",
            "Requests that waited for their host's or address's gap",
            metrics.waits.clone(),
        );
        r.register_with_unit(
            "politeness_wait",
            "Time requests waited for their host's or address's gap",
            Unit::Seconds,
            metrics.waited.clone(),
        );
        r.register(
            "trap_cuts",
            "URLs kept out of the frontier, by trap rule",
            metrics.traps.clone(),
        );
        r.register(
            "renders",
            "Pages run in the browser, by outcome (rendered, not_rendered)",
            metrics.renders.clone(),
        );
        r.register(
            "browser_replacements",
            "Browsers replaced (page count, memory bound, failure)",
            metrics.replacements.clone(),
        );
        r.register(
            "store_page_writes",
            "Pages written to the store, one batch each",
            metrics.page_writes.clone(),
        );
        r.register(
            "frontier_urls",
            "URLs waiting in the frontier",
            metrics.frontier.clone(),
        );
        r.register(
            "hosts",
            "Hosts by state (active, idle, paused, robots, parked, halted)",
            metrics.hosts.clone(),
        );
        r.register(
            "partitions_held",
            "Partitions a worker holds a lease on",
            metrics.partitions_held.clone(),
        );
        r.register(
            "link_stream_backlog",
            "Links for a worker's partitions waiting in Redis, not yet applied",
            metrics.backlog.clone(),
        );
        r.register(
            "redis_commands",
            "Commands a worker sent to Redis",
            metrics.redis_commands.clone(),
        );
        metrics
    }

    /// Counts a request for `kind` (`html`, `image`, `pdf`, `sitemap`, `none`) that took
    /// `took`: its status and body bytes, or `None` when it got no answer.
    pub(crate) fn fetched(&self, kind: &'static str, answer: Option<(u16, u64)>, took: Duration) {
        let class = match answer {
            Some((100..=199, _)) => "1xx",
            Some((200..=299, _)) => "2xx",
            Some((300..=399, _)) => "3xx",
            Some((400..=499, _)) => "4xx",
            Some(_) => "5xx",
            None => "failed",
        };
        self.fetches
            .get_or_create(&FetchLabels { kind, class })
            .inc();
        if let Some((_, bytes)) = answer {
            self.bytes.get_or_create(&KindLabels { kind }).inc_by(bytes);
        }
        self.durations.observe(took.as_secs_f64());
    }

    /// Counts a robots.txt fetch by its outcome (`rules`, `no_rules`, `forbidden`,
    /// `unavailable`, `refused`).
    pub(crate) fn robots(&self, outcome: &'static str) {
        self.robots.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// Counts a request that waited `waited` for its gap (under a millisecond: it did not
    /// wait, it only passed the gate).
    pub(crate) fn waited(&self, waited: Duration) {
        if waited >= Duration::from_millis(1) {
            self.waits.inc();
            self.waited.inc_by(waited.as_secs_f64());
        }
    }

    /// Counts a render, done or not.
    pub(crate) fn rendered(&self, outcome: &RenderOutcome) {
        let outcome = match outcome {
            RenderOutcome::Rendered => "rendered",
            RenderOutcome::NotRendered { .. } => "not_rendered",
        };
        self.renders.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// Counts a browser replaced.
    pub(crate) fn browser_replaced(&self) {
        self.replacements.inc();
    }

    /// Counts a page written.
    pub(crate) fn page_written(&self) {
        self.page_writes.inc();
    }

    /// Counts URLs kept out by trap rule, from the totals of one crawl so far (`trapped`)
    /// and those it had counted before (`counted`, brought up to date).
    pub(crate) fn trapped(
        &self,
        trapped: &BTreeMap<&'static str, u64>,
        counted: &mut BTreeMap<&'static str, u64>,
    ) {
        for (&rule, &total) in trapped {
            let before = counted.insert(rule, total).unwrap_or(0);
            if total > before {
                self.traps
                    .get_or_create(&RuleLabels { rule })
                    .inc_by(total - before);
            }
        }
    }

    /// Whether it can take work, as `/readyz` answers.
    pub fn readiness(&self) -> Readiness {
        self.ready
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sets what `/readyz` answers.
    pub fn set_readiness(&self, readiness: Readiness) {
        *self.ready.lock().unwrap_or_else(PoisonError::into_inner) = readiness;
    }

    /// A crawl's share of the frontier and host gauges, taken back when it is dropped.
    pub(crate) fn share(&self) -> GaugeShare {
        GaugeShare {
            metrics: self.clone(),
            frontier: 0,
            hosts: [0; HOST_STATES.len()],
        }
    }

    /// A worker's leases held now, and the commands its connection to Redis has sent in
    /// all (the new ones are counted).
    pub(crate) fn worker(&self, partitions_held: usize, redis_commands: u64) {
        self.partitions_held
            .set(i64::try_from(partitions_held).unwrap_or(i64::MAX));
        let before = self.redis_counted.swap(redis_commands, Ordering::Relaxed);
        self.redis_commands
            .inc_by(redis_commands.saturating_sub(before));
    }

    /// The links for a worker's partitions waiting in Redis now.
    pub(crate) fn backlog(&self, links: u64) {
        self.backlog.set(i64::try_from(links).unwrap_or(i64::MAX));
    }
}

/// Binds `addr` (a taken port is a one-line error naming it) and serves a new registry of
/// [`CrawlMetrics`] there, with `/healthz` and `/readyz`, for the rest of the process's life:
/// the metrics to count in, and the address bound (port 0 gets a free one).
pub async fn serve(addr: SocketAddr) -> Result<(CrawlMetrics, SocketAddr), String> {
    let listener = service::listen::bind(addr).await?;
    let bound = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for metrics on {addr}: {e}"))?;
    let mut registry = Registry::with_prefix("crawler");
    let metrics = CrawlMetrics::registered(&mut registry);
    let ready = metrics.clone();
    tokio::spawn(service::listen::serve_metrics(
        listener,
        registry,
        move || ready.readiness(),
        std::future::pending(),
    ));
    Ok((metrics, bound))
}

/// One crawl's part of the process's gauges: what it last added, so that its next figures
/// replace them and its end takes them back.
#[derive(Debug)]
pub(crate) struct GaugeShare {
    metrics: CrawlMetrics,
    frontier: i64,
    hosts: [i64; HOST_STATES.len()],
}

impl GaugeShare {
    /// This crawl's frontier length and hosts by state now (in [`HOST_STATES`]' order).
    pub(crate) fn set(&mut self, frontier: u64, hosts: [usize; HOST_STATES.len()]) {
        let frontier = i64::try_from(frontier).unwrap_or(i64::MAX);
        self.metrics.frontier.inc_by(frontier - self.frontier);
        self.frontier = frontier;
        for (i, state) in HOST_STATES.iter().enumerate() {
            let count = i64::try_from(hosts[i]).unwrap_or(i64::MAX);
            self.metrics
                .hosts
                .get_or_create(&StateLabels { state })
                .inc_by(count - self.hosts[i]);
            self.hosts[i] = count;
        }
    }
}

impl Drop for GaugeShare {
    fn drop(&mut self) {
        self.set(0, [0; HOST_STATES.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_crawls_add_their_shares_and_take_them_back() {
        let mut registry = Registry::with_prefix("crawler");
        let metrics = CrawlMetrics::registered(&mut registry);
        let mut a = metrics.share();
        let mut b = metrics.share();
        a.set(10, [1, 2, 0, 0, 0, 0]);
        b.set(5, [0, 1, 1, 0, 0, 0]);
        a.set(7, [1, 1, 0, 0, 0, 1]);
        assert_eq!(metrics.frontier.get(), 12);
        let state = |state| metrics.hosts.get_or_create(&StateLabels { state }).get();
        assert_eq!(
            (
                state("active"),
                state("idle"),
                state("paused"),
                state("halted")
            ),
            (1, 2, 1, 1)
        );
        drop(a);
        assert_eq!(metrics.frontier.get(), 5);
        assert_eq!(state("halted"), 0);
        let text = service::metrics::render(&registry);
        assert!(text.contains("crawler_frontier_urls 5\n"), "{text}");
    }

    #[test]
    fn trap_cuts_count_what_is_new_since_the_last_look() {
        let metrics = CrawlMetrics::default();
        let mut counted = BTreeMap::new();
        let mut trapped = BTreeMap::from([("host_budget", 3)]);
        metrics.trapped(&trapped, &mut counted);
        trapped.insert("host_budget", 5);
        metrics.trapped(&trapped, &mut counted);
        let rule = RuleLabels {
            rule: "host_budget",
        };
        assert_eq!(metrics.traps.get_or_create(&rule).get(), 5);
    }
}
