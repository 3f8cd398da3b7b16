//! The crawl's monitoring line: every few seconds one JSON object in the log, shaped like the
//! seed crawl's — overall rates and counts, and for each host active since the last line its
//! successes, errors, the last 50 statuses by code, its current gap and its state. The same
//! figures go to the process's Prometheus metrics ([`CrawlMetrics`]), counted as they come
//! and, for the frontier, hosts and trap cuts, brought up to date with each line.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use crate::fetch::{FetchError, Fetched};
use crate::frontier::Frontier;
use crate::metrics::{CrawlMetrics, GaugeShare};
use crate::robots_fetch::RobotsResult;
use shared::record::{EntryKind, RenderOutcome, RobotsFetch};

/// Statuses remembered per host.
pub(crate) const LAST_STATUSES: usize = 50;
/// Hosts listed in one line at most (the busiest since the last line).
pub(crate) const MAX_HOSTS_LISTED: usize = 20;

/// One host's figures.
#[derive(Clone, Debug, Default)]
struct HostStats {
    successes: u64,
    errors: u64,
    /// Requests since the last line, to pick the busiest.
    recent: u64,
    /// The last [`LAST_STATUSES`] statuses; 0 for no answer.
    statuses: VecDeque<u16>,
}

/// The figures behind the monitoring line.
#[derive(Debug)]
pub(crate) struct Monitor {
    last_line: Instant,
    fetched: u64,
    errors: u64,
    duplicates: u64,
    fetched_at_last_line: u64,
    errors_at_last_line: u64,
    hosts: BTreeMap<String, HostStats>,
    /// The process's metrics, and this crawl's share of their gauges.
    metrics: CrawlMetrics,
    share: GaugeShare,
    /// URLs kept out by each trap rule, as counted in `metrics` so far.
    trapped: BTreeMap<&'static str, u64>,
}

impl Monitor {
    /// A monitor whose first interval starts `now`.
    pub(crate) fn new(now: Instant) -> Self {
        Self {
            last_line: now,
            fetched: 0,
            errors: 0,
            duplicates: 0,
            fetched_at_last_line: 0,
            errors_at_last_line: 0,
            hosts: BTreeMap::new(),
            share: CrawlMetrics::default().share(),
            metrics: CrawlMetrics::default(),
            trapped: BTreeMap::new(),
        }
    }

    /// Counts into `metrics` from now on.
    pub(crate) fn count_in(&mut self, metrics: CrawlMetrics) {
        self.share = metrics.share();
        self.metrics = metrics;
    }

    /// The process's metrics.
    pub(crate) fn metrics(&self) -> &CrawlMetrics {
        &self.metrics
    }

    /// A page request of `origin` (a page, an image, a PDF or a sitemap), answered or
    /// `failed`, that took `took`, and its render if it had one: in the host's figures
    /// ([`Monitor::record`]) and the metrics.
    pub(crate) fn fetched(
        &mut self,
        origin: &str,
        entry: EntryKind,
        (answer, failed): (Result<&Fetched, &FetchError>, bool),
        took: Duration,
        render: Option<&RenderOutcome>,
    ) {
        self.record(origin, answer.ok().map(|fetched| fetched.status), failed);
        let kind = match (entry, answer) {
            (EntryKind::Sitemap, _) => "sitemap",
            (_, Ok(fetched)) => fetched.kind.map_or("none", |kind| kind.name()),
            (EntryKind::Image, Err(_)) => "image",
            (_, Err(_)) => "html",
        };
        let answer = answer
            .ok()
            .map(|fetched| (fetched.status, fetched.body_len));
        self.metrics.fetched(kind, answer, took);
        if let Some(render) = render {
            self.metrics.rendered(render);
        }
    }

    /// A robots.txt fetch's outcome, in the metrics.
    pub(crate) fn robots(&self, result: &RobotsResult) {
        self.metrics.robots(match result {
            RobotsResult::Answer(record) => match record.fetch {
                RobotsFetch::Rules(_) => "rules",
                RobotsFetch::NoRules => "no_rules",
                RobotsFetch::Forbidden => "forbidden",
            },
            RobotsResult::Unavailable { .. } => "unavailable",
            RobotsResult::Refused(_) => "refused",
        });
    }

    /// A finished page request: its status (`None`: no answer) and whether it failed.
    pub(crate) fn record(&mut self, origin: &str, status: Option<u16>, failed: bool) {
        self.fetched += 1;
        let host = self.hosts.entry(origin.to_string()).or_default();
        host.recent += 1;
        if failed {
            self.errors += 1;
            host.errors += 1;
        } else {
            host.successes += 1;
        }
        if host.statuses.len() == LAST_STATUSES {
            host.statuses.pop_front();
        }
        host.statuses.push_back(status.unwrap_or(0));
    }

    /// A page stored as a duplicate of another.
    pub(crate) fn duplicate(&mut self) {
        self.duplicates += 1;
    }

    /// The line for the interval that ends `now`; starts the next interval.
    pub(crate) fn line(
        &mut self,
        now: Instant,
        stored: u64,
        frontier_len: u64,
        frontier: &Frontier,
        trapped: &BTreeMap<&'static str, u64>,
    ) -> Value {
        self.share.set(frontier_len, frontier.host_states(now));
        self.metrics.trapped(trapped, &mut self.trapped);
        let secs = now.duration_since(self.last_line).as_secs_f64().max(0.001);
        let rate = |count: u64, before: u64| ((count - before) as f64 / secs * 10.0).round() / 10.0;
        let mut active: Vec<(&String, &HostStats)> =
            self.hosts.iter().filter(|(_, h)| h.recent > 0).collect();
        active.sort_by(|a, b| b.1.recent.cmp(&a.1.recent).then(a.0.cmp(b.0)));
        let hosts: Vec<Value> = active
            .into_iter()
            .take(MAX_HOSTS_LISTED)
            .map(|(origin, stats)| {
                let mut by_code: BTreeMap<String, u32> = BTreeMap::new();
                for status in &stats.statuses {
                    *by_code.entry(status.to_string()).or_default() += 1;
                }
                let (delay, state) = frontier
                    .host_view(origin, now)
                    .unwrap_or((Duration::ZERO, "unknown"));
                json!({
                    "host": origin,
                    "successes": stats.successes,
                    "errors": stats.errors,
                    "last_statuses": by_code,
                    "delay_ms": delay.as_millis() as u64,
                    "state": state,
                })
            })
            .collect();
        let line = json!({
            "pages_per_sec": rate(self.fetched, self.fetched_at_last_line),
            "errors_per_sec": rate(self.errors, self.errors_at_last_line),
            "fetched": self.fetched,
            "stored": stored,
            "duplicates": self.duplicates,
            "frontier": frontier_len,
            "halted_hosts": frontier.halted_hosts(),
            "hosts": hosts,
        });
        self.last_line = now;
        self.fetched_at_last_line = self.fetched;
        self.errors_at_last_line = self.errors;
        self.hosts.values_mut().for_each(|h| h.recent = 0);
        line
    }
}

#[cfg(test)]
mod tests {
    use shared::config::RawCrawlerConfig;

    use super::*;
    use crate::politeness::Politeness;

    #[tokio::test(start_paused = true)]
    async fn a_line_counts_rates_statuses_and_busy_hosts() {
        let frontier = Frontier::new(Politeness::new(
            &RawCrawlerConfig::default().validate().unwrap(),
        ));
        let mut monitor = Monitor::new(Instant::now());
        for i in 0..60 {
            let status = if i % 10 == 0 { 503 } else { 200 };
            monitor.record("http://a.test", Some(status), status == 503);
        }
        monitor.record("http://b.test", None, true);
        monitor.duplicate();
        tokio::time::advance(Duration::from_secs(5)).await;
        let line = monitor.line(Instant::now(), 59, 7, &frontier, &BTreeMap::new());
        assert_eq!(line["pages_per_sec"], 12.2);
        assert_eq!(line["errors_per_sec"], 1.4);
        assert_eq!(
            (line["stored"].as_u64(), line["frontier"].as_u64()),
            (Some(59), Some(7))
        );
        assert_eq!(line["duplicates"], 1);
        let hosts = line["hosts"].as_array().unwrap();
        assert_eq!(hosts[0]["host"], "http://a.test", "busiest first");
        assert_eq!(hosts[0]["successes"], 54);
        assert_eq!(hosts[0]["errors"], 6);
        // The last 50 of 60: statuses 10..60, of which 5 were 503.
        assert_eq!(hosts[0]["last_statuses"]["200"], 45);
        assert_eq!(hosts[0]["last_statuses"]["503"], 5);
        assert_eq!(hosts[1]["last_statuses"]["0"], 1, "no answer counts as 0");

        tokio::time::advance(Duration::from_secs(5)).await;
        let quiet = monitor.line(Instant::now(), 59, 7, &frontier, &BTreeMap::new());
        assert_eq!(quiet["pages_per_sec"], 0.0);
        assert!(
            quiet["hosts"].as_array().unwrap().is_empty(),
            "only active hosts"
        );
    }
}
