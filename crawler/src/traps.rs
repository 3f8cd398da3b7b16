//! Trap defences: which newly found URLs are never queued, whatever links to them.
//!
//! Stateless rules look at the URL alone: a host on the blacklist, the operator's URL deny and
//! allow patterns (regular expressions over the canonical URL), a path segment repeated
//! three times (`/a/b/a/b/a/`, the loop of a relative link on a page served at every depth).
//! Stateful rules count what was queued, in the store, in the same write batch that queues:
//! the per-host page budget, and the distinct query strings queued per path (endless
//! calendars, faceted search). URLs over the length limit never become canonical URLs at all
//! (see `shared::url::MAX_URL_LEN`).

use std::collections::HashMap;

use regex::RegexSet;
use shared::CanonicalUrl;
use shared::config::{ConfigError, CrawlerConfig, url_patterns};

/// The rule that kept a URL out of the frontier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrapRule {
    /// Its host is on `deny_hosts`.
    DeniedHost,
    /// It matches a `deny_urls` pattern.
    DeniedUrl,
    /// `allow_urls` is set and it matches none of them.
    NotAllowedUrl,
    /// One path segment appears [`MAX_SEGMENT_REPEATS`] times or more.
    RepeatedSegment,
    /// Its host already has `max_pages_per_host` URLs queued.
    HostBudget,
    /// Its path already has `max_queries_per_path` distinct query strings queued.
    QueryCap,
    /// Longer than `shared::url::MAX_URL_LEN` bytes (it never became a canonical URL).
    TooLong,
}

impl TrapRule {
    /// A short name, for logs and counters.
    pub fn name(self) -> &'static str {
        match self {
            TrapRule::DeniedHost => "denied_host",
            TrapRule::DeniedUrl => "denied_url",
            TrapRule::NotAllowedUrl => "not_allowed_url",
            TrapRule::RepeatedSegment => "repeated_segment",
            TrapRule::HostBudget => "host_budget",
            TrapRule::QueryCap => "query_cap",
            TrapRule::TooLong => "url_too_long",
        }
    }

    /// The reason a URL this rule kept out is recorded with.
    pub fn skip_reason(self) -> shared::record::SkipReason {
        let rule = self.name().to_string();
        match self {
            TrapRule::HostBudget => shared::record::SkipReason::Budget { rule },
            _ => shared::record::SkipReason::Trap { rule },
        }
    }
}

/// A segment seen this many times in one path marks a loop.
pub const MAX_SEGMENT_REPEATS: usize = 3;

/// The trap rules of a crawl.
#[derive(Clone, Debug, Default)]
pub struct TrapRules {
    deny_hosts: Vec<String>,
    deny_urls: Option<RegexSet>,
    allow_urls: Option<RegexSet>,
    /// The `[crawler.hosts."NAME"]` budgets and filters, by host name.
    hosts: HashMap<String, HostRules>,
    /// 0: no budget.
    max_pages_per_host: u64,
    /// 0: no cap.
    pub max_queries_per_path: u32,
}

/// One host's own budget and URL filters.
#[derive(Clone, Debug, Default)]
struct HostRules {
    max_pages: Option<u64>,
    deny_urls: Option<RegexSet>,
    allow_urls: Option<RegexSet>,
}

impl TrapRules {
    /// From the crawler config; fails on a URL pattern that does not compile.
    pub fn new(config: &CrawlerConfig) -> Result<Self, ConfigError> {
        let mut hosts = HashMap::new();
        for (host, settings) in &config.hosts {
            let key = |name: &str| format!("hosts.{host:?}.{name}");
            hosts.insert(
                host.to_ascii_lowercase(),
                HostRules {
                    max_pages: settings.max_pages,
                    deny_urls: url_patterns(&key("deny_urls"), &settings.deny_urls)?,
                    allow_urls: url_patterns(&key("allow_urls"), &settings.allow_urls)?,
                },
            );
        }
        Ok(Self {
            hosts,
            deny_hosts: config
                .deny_hosts
                .iter()
                .map(|h| h.trim().trim_start_matches("*.").to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect(),
            max_pages_per_host: config.max_pages_per_host,
            max_queries_per_path: config.max_queries_per_path,
            deny_urls: url_patterns("deny_urls", &config.deny_urls)?,
            allow_urls: url_patterns("allow_urls", &config.allow_urls)?,
        })
    }

    /// The most URLs `host` may have queued over the life of the store (0: no budget): its
    /// own `max_pages`, else `max_pages_per_host`.
    pub fn budget(&self, host: &str) -> u64 {
        self.hosts
            .get(host)
            .and_then(|rules| rules.max_pages)
            .unwrap_or(self.max_pages_per_host)
    }

    /// The stateless rules: `Err` names the rule a URL breaks.
    pub fn check(&self, url: &CanonicalUrl) -> Result<(), TrapRule> {
        let host = url.host();
        if self
            .deny_hosts
            .iter()
            .any(|denied| host == denied || host.ends_with(&format!(".{denied}")))
        {
            return Err(TrapRule::DeniedHost);
        }
        let own = self.hosts.get(host);
        let denied = |set: Option<&RegexSet>| set.is_some_and(|deny| deny.is_match(url.as_str()));
        if denied(self.deny_urls.as_ref()) || denied(own.and_then(|o| o.deny_urls.as_ref())) {
            return Err(TrapRule::DeniedUrl);
        }
        let not_allowed =
            |set: Option<&RegexSet>| set.is_some_and(|allow| !allow.is_match(url.as_str()));
        if not_allowed(self.allow_urls.as_ref())
            || not_allowed(own.and_then(|o| o.allow_urls.as_ref()))
        {
            return Err(TrapRule::NotAllowedUrl);
        }
        if has_repeated_segment(url.as_url().path()) {
            return Err(TrapRule::RepeatedSegment);
        }
        Ok(())
    }
}

/// Whether one non-empty segment of `path` appears [`MAX_SEGMENT_REPEATS`] times or more.
fn has_repeated_segment(path: &str) -> bool {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    path.split('/').filter(|s| !s.is_empty()).any(|segment| {
        let count = counts.entry(segment).or_default();
        *count += 1;
        *count >= MAX_SEGMENT_REPEATS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_of_its_own_has_its_own_budget_and_filters() {
        let mut config = CrawlerConfig {
            max_pages_per_host: 100,
            deny_urls: vec!["/print/".into()],
            ..CrawlerConfig::default()
        };
        config.hosts.insert(
            "docs.test".into(),
            shared::config::HostOverride {
                max_pages: Some(5),
                deny_urls: vec![r"/search\?".into()],
                allow_urls: vec!["^http://docs\\.test/(book|api)/".into()],
                ..Default::default()
            },
        );
        let rules = TrapRules::new(&config).unwrap();
        assert_eq!(rules.budget("docs.test"), 5);
        assert_eq!(rules.budget("other.test"), 100);
        let check = |url: &str| rules.check(&CanonicalUrl::parse(url).unwrap());
        assert_eq!(check("http://docs.test/book/intro.html"), Ok(()));
        assert_eq!(
            check("http://docs.test/blog/post.html"),
            Err(TrapRule::NotAllowedUrl),
            "outside the host's allowed prefixes"
        );
        assert_eq!(
            check("http://docs.test/api/search?q=x"),
            Err(TrapRule::DeniedUrl),
            "the host's deny wins"
        );
        assert_eq!(
            check("http://docs.test/book/print/x"),
            Err(TrapRule::DeniedUrl),
            "the crawl-wide deny still applies"
        );
        assert_eq!(
            check("http://other.test/blog/post.html"),
            Ok(()),
            "another host is not filtered"
        );
    }

    #[test]
    fn a_bad_host_pattern_is_named() {
        let mut config = CrawlerConfig::default();
        config.hosts.insert(
            "docs.test".into(),
            shared::config::HostOverride {
                deny_urls: vec!["(".into()],
                ..Default::default()
            },
        );
        let Err(error) = TrapRules::new(&config) else {
            panic!("a pattern that does not compile is refused");
        };
        let error = error.to_string();
        assert!(error.contains(r#"hosts."docs.test".deny_urls"#), "{error}");
    }

    fn rules() -> TrapRules {
        TrapRules::new(&CrawlerConfig {
            deny_hosts: vec!["ads.test".into(), "*.tracker.test".into()],
            deny_urls: vec![r"/print/".into(), r"[?&]sort=".into()],
            allow_urls: vec![r"^https?://[^/]*\.test/".into()],
            ..CrawlerConfig::default()
        })
        .unwrap()
    }

    fn check(url: &str) -> Result<(), TrapRule> {
        rules().check(&CanonicalUrl::parse(url).unwrap())
    }

    #[test]
    fn stateless_rules() {
        for (url, expected) in [
            ("http://a.test/a/b/a/b/", Ok(())),
            ("http://a.test/a/b/a/b/a/", Err(TrapRule::RepeatedSegment)),
            ("http://a.test/x/x/x", Err(TrapRule::RepeatedSegment)),
            ("http://a.test/x/y/z/x/y/w", Ok(())),
            ("http://a.test/x/../x/x/", Ok(())), // dot segments resolve first: /x/x/
            ("http://ads.test/", Err(TrapRule::DeniedHost)),
            ("http://cdn.ads.test/x", Err(TrapRule::DeniedHost)),
            ("http://pixel.tracker.test/x", Err(TrapRule::DeniedHost)),
            ("http://notads.test/", Ok(())),
            ("http://a.test/print/x", Err(TrapRule::DeniedUrl)),
            (
                "http://a.test/list?page=2&sort=asc",
                Err(TrapRule::DeniedUrl),
            ),
            ("http://a.test/list?page=2", Ok(())),
            ("http://a.example/", Err(TrapRule::NotAllowedUrl)),
        ] {
            assert_eq!(check(url), expected, "{url}");
        }
    }
}
