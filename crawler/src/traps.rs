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
    /// 0: no budget.
    pub max_pages_per_host: u64,
    /// 0: no cap.
    pub max_queries_per_path: u32,
}

impl TrapRules {
    /// From the crawler config; fails on a URL pattern that does not compile.
    pub fn new(config: &CrawlerConfig) -> Result<Self, ConfigError> {
        Ok(Self {
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
        if self
            .deny_urls
            .as_ref()
            .is_some_and(|deny| deny.is_match(url.as_str()))
        {
            return Err(TrapRule::DeniedUrl);
        }
        if self
            .allow_urls
            .as_ref()
            .is_some_and(|allow| !allow.is_match(url.as_str()))
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
