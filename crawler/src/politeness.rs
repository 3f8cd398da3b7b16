//! Politeness settings per origin: the least gap between two requests and the most requests
//! in flight, from the operator's settings and robots.txt `Crawl-delay`.

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
}

impl Politeness {
    /// From the crawler config.
    pub fn new(config: &CrawlerConfig) -> Self {
        Self {
            delay: Duration::from_millis(config.delay_ms),
            concurrency: config.host_concurrency,
            max_crawl_delay: Duration::from_millis(config.max_crawl_delay_ms),
            breaker_pause: Duration::from_millis(config.breaker_pause_ms),
            hosts: config
                .hosts
                .iter()
                .map(|(h, o)| (h.to_ascii_lowercase(), o.clone()))
                .collect(),
        }
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
            .and_then(|o| o.delay_ms)
            .map_or(self.delay, Duration::from_millis);
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
            .unwrap_or(self.concurrency)
            .max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crawl_delay_lengthens_but_never_shortens() {
        let mut config = CrawlerConfig {
            delay_ms: 1000,
            ..CrawlerConfig::default()
        };
        config.hosts.insert(
            "own.test".into(),
            HostOverride {
                delay_ms: Some(0),
                concurrency: Some(8),
            },
        );
        let p = Politeness::new(&config);
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
}
