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

use shared::CanonicalUrl;
use shared::config::{CrawlerConfig, UrlPatterns};

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
pub(crate) const MAX_SEGMENT_REPEATS: usize = 3;

/// The trap rules of a crawl.
#[derive(Clone, Debug, Default)]
pub struct TrapRules {
    deny_hosts: Vec<String>,
    deny_urls: UrlPatterns,
    allow_urls: UrlPatterns,
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
    deny_urls: UrlPatterns,
    allow_urls: UrlPatterns,
}

impl TrapRules {
    /// From the crawler config (its patterns compiled, its host names normalized).
    pub fn new(config: &CrawlerConfig) -> Self {
        let hosts = config
            .hosts
            .iter()
            .map(|(host, settings)| {
                let rules = HostRules {
                    max_pages: settings.max_pages,
                    deny_urls: settings.deny_urls.clone(),
                    allow_urls: settings.allow_urls.clone(),
                };
                (host.clone(), rules)
            })
            .collect();
        Self {
            hosts,
            deny_hosts: config.deny_hosts.clone(),
            max_pages_per_host: config.max_pages_per_host,
            max_queries_per_path: config.max_queries_per_path,
            deny_urls: config.deny_urls.clone(),
            allow_urls: config.allow_urls.clone(),
        }
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
        let denied = |deny: &UrlPatterns| deny.any_match(url.as_str());
        if denied(&self.deny_urls) || own.is_some_and(|o| denied(&o.deny_urls)) {
            return Err(TrapRule::DeniedUrl);
        }
        let not_allowed = |allow: &UrlPatterns| !allow.is_empty() && !allow.any_match(url.as_str());
        if not_allowed(&self.allow_urls) || own.is_some_and(|o| not_allowed(&o.allow_urls)) {
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
    use shared::config::{RawCrawlerConfig, RawHostOverride};

    #[test]
    fn a_host_of_its_own_has_its_own_budget_and_filters() {
        let mut config = RawCrawlerConfig {
            max_pages_per_host: 100,
            deny_urls: vec!["/print/".into()],
            ..RawCrawlerConfig::default()
        };
        config.hosts.insert(
            "Docs.test".into(),
            RawHostOverride {
                max_pages: Some(5),
                deny_urls: vec![r"/search\?".into()],
                allow_urls: vec!["^http://docs\\.test/(book|api)/".into()],
                ..Default::default()
            },
        );
        let rules = TrapRules::new(&config.validate().unwrap());
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

    fn rules() -> TrapRules {
        TrapRules::new(
            &RawCrawlerConfig {
                deny_hosts: vec!["ads.test".into(), "*.tracker.test".into()],
                deny_urls: vec![r"/print/".into(), r"[?&]sort=".into()],
                allow_urls: vec![r"^https?://[^/]*\.test/".into()],
                ..RawCrawlerConfig::default()
            }
            .validate()
            .unwrap(),
        )
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
