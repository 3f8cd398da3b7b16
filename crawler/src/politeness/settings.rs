//! Politeness settings per origin: the least gap between two requests and the most requests
//! in flight, from the operator's settings and robots.txt `Crawl-delay`; the same per IP
//! address, shared by every origin that resolves to it; and each origin's fair share of the
//! crawl's fetch slots.

use std::collections::BTreeMap;
use std::time::Duration;

use shared::config::{CrawlerConfig, HostOverride};

/// The operator's politeness settings.
#[derive(Clone, Debug)]
pub struct Politeness {
    delay: Duration,
    concurrency: usize,
    max_crawl_delay: Duration,
    breaker_pause: Duration,
    hosts: BTreeMap<String, HostOverride>,
    capacity: usize,
    ip: Option<IpLimits>,
}

/// What all the origins on one IP address may ask of it together. One origin alone is never
/// held below its own settings: the address's limits are at least those of the origin asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpLimits {
    /// Most requests in flight to the address.
    pub concurrency: usize,
    /// Least gap between two requests to the address.
    pub delay: Duration,
}

impl Politeness {
    /// From the crawler config (its host names are already lowercase).
    pub fn new(config: &CrawlerConfig) -> Self {
        Self {
            delay: config.delay,
            concurrency: config.host_concurrency.get(),
            max_crawl_delay: config.max_crawl_delay,
            breaker_pause: config.breaker_pause,
            hosts: config.hosts.clone(),
            capacity: config.max_in_flight.get(),
            ip: config.ip_concurrency.map(|concurrency| IpLimits {
                concurrency: concurrency.get(),
                delay: config.ip_delay,
            }),
        }
    }

    /// The per-address limits, or `None` when the operator turned them off.
    pub fn ip_limits(&self) -> Option<IpLimits> {
        self.ip
    }

    /// The most fetch slots one origin may hold while `hosts_with_work` origins have work:
    /// an equal share of the crawl's capacity, and never more than a quarter of it while
    /// other origins wait (an origin crawled alone may use it all).
    pub fn fair_share(&self, hosts_with_work: usize) -> usize {
        let equal = self.capacity / hosts_with_work.max(1);
        let share = if hosts_with_work > 1 {
            equal.min(self.capacity / 4)
        } else {
            equal
        };
        share.max(1)
    }

    fn host_override(&self, origin: &str) -> Option<&HostOverride> {
        let host = url::Url::parse(origin).ok()?.host_str()?.to_string();
        self.hosts.get(&host)
    }

    /// The gap between two requests to `origin`: the operator's delay, or a larger
    /// `Crawl-delay` (capped by config); robots.txt never shortens what the operator set.
    pub fn delay_for(&self, origin: &str, crawl_delay_secs: Option<f64>) -> Duration {
        let operator = self
            .host_override(origin)
            .and_then(|o| o.delay)
            .unwrap_or(self.delay);
        let robots = crawl_delay_secs
            .map(|s| Duration::from_secs_f64(s.min(86_400.0)).min(self.max_crawl_delay))
            .unwrap_or_default();
        operator.max(robots)
    }

    /// The longest gap politeness imposes on its own (the `Crawl-delay` cap).
    pub fn max_delay(&self) -> Duration {
        self.max_crawl_delay
    }

    /// How long a host whose circuit breaker trips is left alone.
    pub fn breaker_pause(&self) -> Duration {
        self.breaker_pause
    }

    /// Most requests in flight to `origin`.
    pub fn concurrency_for(&self, origin: &str) -> usize {
        self.host_override(origin)
            .and_then(|o| o.concurrency)
            .map_or(self.concurrency, |n| n.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::config::{RawCrawlerConfig, RawHostOverride};

    #[test]
    fn crawl_delay_lengthens_but_never_shortens() {
        let mut config = RawCrawlerConfig {
            delay_ms: 1000,
            ..RawCrawlerConfig::default()
        };
        config.hosts.insert(
            "Own.test".into(),
            RawHostOverride {
                delay_ms: Some(0),
                concurrency: Some(8),
                ..RawHostOverride::default()
            },
        );
        let p = Politeness::new(&config.validate().unwrap());
        assert_eq!(p.delay_for("http://a.test", None), Duration::from_secs(1));
        assert_eq!(
            p.delay_for("http://a.test", Some(0.1)),
            Duration::from_secs(1)
        );
        assert_eq!(
            p.delay_for("http://a.test", Some(5.0)),
            Duration::from_secs(5)
        );
        assert_eq!(
            p.delay_for("http://a.test", Some(1e9)),
            Duration::from_secs(30),
            "capped"
        );
        assert_eq!(p.delay_for("http://own.test:8080", None), Duration::ZERO);
        assert_eq!(p.concurrency_for("http://own.test:8080"), 8);
        assert_eq!(p.concurrency_for("http://a.test"), 1);
    }

    #[test]
    fn fair_share_is_equal_and_at_most_a_quarter_when_others_wait() {
        let config = RawCrawlerConfig {
            max_in_flight: 64,
            ..RawCrawlerConfig::default()
        };
        let p = Politeness::new(&config.validate().unwrap());
        assert_eq!(p.fair_share(1), 64, "alone, a host may use every slot");
        assert_eq!(p.fair_share(2), 16, "a quarter while another host waits");
        assert_eq!(p.fair_share(4), 16);
        assert_eq!(p.fair_share(8), 8, "an equal share");
        assert_eq!(p.fair_share(1000), 1, "never none");
    }
}
