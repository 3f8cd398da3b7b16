//! Configuration: one TOML file with a section per program, every field defaulted.
//!
//! `Config::load(None)` gives the defaults; `data/example.toml` lists every field with its
//! default and what it does. Command-line flags override the file.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

use regex::{Regex, RegexSet};
use serde::Deserialize;

/// Why a config file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not valid TOML for this schema.
    #[error("invalid config {path}: {source}")]
    Parse {
        /// The file.
        path: String,
        /// What is wrong, with line and column.
        source: toml::de::Error,
    },
    /// A value out of its range.
    #[error("invalid config: {0}")]
    Invalid(String),
}

/// The whole configuration.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The crawler.
    pub crawler: CrawlerConfig,
    /// Query-time ranking, used by searchd.
    pub ranking: RankingConfig,
    /// The search server.
    pub searchd: SearchdConfig,
}

/// The crawler's settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlerConfig {
    /// robots.txt product token and product name in `User-Agent`.
    pub agent: String,
    /// The URL in `User-Agent` where site owners learn about the bot.
    pub info_url: String,
    /// The `From` header: a contact address for site owners.
    pub from: Option<String>,
    /// Least gap between two requests to one host, in milliseconds.
    pub delay_ms: u64,
    /// Most requests in flight to one host.
    pub host_concurrency: usize,
    /// Most requests in flight overall. One host holds at most an equal share of them, and
    /// no more than a quarter while other hosts wait.
    pub max_in_flight: usize,
    /// Most requests in flight to one IP address, all hosts on it together (0: no
    /// per-address limit). Never below one host's own `host_concurrency`.
    pub ip_concurrency: usize,
    /// Least gap between two requests to one IP address, all hosts on it together, in
    /// milliseconds. Never above one host's own delay.
    pub ip_delay_ms: u64,
    /// Stop after this many pages are stored (0: no limit).
    pub max_pages: u64,
    /// Do not queue links deeper than this from a seed.
    pub max_depth: u32,
    /// Most URLs queued per host over the life of the store (0: no budget): a trap site
    /// costs no more than this.
    pub max_pages_per_host: u64,
    /// Most distinct query strings queued per path (0: no cap): endless calendars and
    /// faceted search stop here.
    pub max_queries_per_path: u32,
    /// Hosts never crawled; `example.org` also covers its subdomains.
    pub deny_hosts: Vec<String>,
    /// Regular expressions (searched anywhere in the canonical URL): a URL matching any is
    /// never queued.
    pub deny_urls: Vec<String>,
    /// Regular expressions: when given, only URLs matching one of them are queued (seeds
    /// included). `deny_urls` wins over them.
    pub allow_urls: Vec<String>,
    /// Query parameters removed from every URL before it is queued or stored, on top of the
    /// built-in tracking and session list (`utm_*`, `gclid`, `PHPSESSID` ...). Names compare
    /// case-insensitively; a trailing `*` matches a prefix (`ref_*`).
    pub strip_params: Vec<String>,
    /// Redirects followed from one URL.
    pub max_redirects: u8,
    /// Largest body read, in bytes; longer answers are cut and marked truncated.
    pub max_body_bytes: usize,
    /// TCP connect timeout, in milliseconds.
    pub connect_timeout_ms: u64,
    /// Whole-request timeout, in milliseconds.
    pub request_timeout_ms: u64,
    /// Largest `Crawl-delay` honoured, in milliseconds.
    pub max_crawl_delay_ms: u64,
    /// First wait before retrying a robots.txt that failed (429, 5xx, network error);
    /// doubled at each further failure, in milliseconds.
    pub robots_retry_ms: u64,
    /// robots.txt attempts per host in one run before the host is parked until the next run.
    pub robots_attempts: u32,
    /// Attempts at one page (5xx, 429, timeouts, connection failures) before its failure is
    /// stored.
    pub page_attempts: u8,
    /// First wait before a host is asked again after a failed page fetch, in milliseconds;
    /// doubled at each further failure of the same URL. A `Retry-After` answer wins.
    pub retry_ms: u64,
    /// Longest `Retry-After` honoured, in milliseconds; a host asking for more waits this long.
    pub max_retry_after_ms: u64,
    /// How long a host is left alone when over 10% of its requests in the last minute
    /// failed, in milliseconds.
    pub breaker_pause_ms: u64,
    /// Interval before the first revisit of a stored page, in milliseconds.
    pub revisit_ms: u64,
    /// Shortest interval between two visits of one page, in milliseconds.
    pub min_revisit_ms: u64,
    /// Longest interval between two visits of one page, in milliseconds.
    pub max_revisit_ms: u64,
    /// Read the sitemaps that robots.txt `Sitemap:` lines name and queue their URLs.
    pub sitemaps: bool,
    /// Most sitemap files (indexes included) fetched per host in one run.
    pub max_sitemaps_per_host: u32,
    /// Most URLs taken from one sitemap file (the protocol's own limit is 50,000).
    pub max_sitemap_urls: usize,
    /// Largest sitemap read, in bytes after decompression (the protocol's limit is 50 MiB).
    pub max_sitemap_bytes: usize,
    /// Allow loopback addresses (for sites on this machine and tests).
    pub allow_loopback: bool,
    /// Fixed name -> address answers, like curl's `--resolve`, for staging hosts and tests.
    /// They still pass the address policy (loopback needs `allow_loopback`).
    pub resolve: BTreeMap<String, IpAddr>,
    /// Per-host overrides of delay and concurrency, for sites you own.
    pub hosts: BTreeMap<String, HostOverride>,
}

/// Settings for one host (a site you own): politeness, budget and URL filters.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostOverride {
    /// Least gap between two requests, in milliseconds.
    pub delay_ms: Option<u64>,
    /// Most requests in flight.
    pub concurrency: Option<usize>,
    /// Most URLs queued for this host over the life of the store, instead of
    /// `max_pages_per_host` (0: no budget).
    pub max_pages: Option<u64>,
    /// Regular expressions: a URL of this host matching one is never queued (on top of
    /// `deny_urls`).
    #[serde(default)]
    pub deny_urls: Vec<String>,
    /// Regular expressions: when not empty, only URLs of this host matching one are queued
    /// (on top of `allow_urls`); `deny_urls` wins.
    #[serde(default)]
    pub allow_urls: Vec<String>,
}

impl Default for CrawlerConfig {
    fn default() -> Self {
        Self {
            agent: "siftbot".into(),
            info_url: "https://github.com/sift-search/sift/blob/main/README.md#siftbot".into(),
            from: None,
            delay_ms: 1000,
            host_concurrency: 1,
            max_in_flight: 64,
            ip_concurrency: 8,
            ip_delay_ms: 100,
            max_pages: 0,
            max_depth: 50,
            max_pages_per_host: 100_000,
            max_queries_per_path: 100,
            deny_hosts: Vec::new(),
            deny_urls: Vec::new(),
            allow_urls: Vec::new(),
            strip_params: Vec::new(),
            max_redirects: 5,
            max_body_bytes: 10 * 1024 * 1024,
            connect_timeout_ms: 10_000,
            request_timeout_ms: 30_000,
            max_crawl_delay_ms: 30_000,
            robots_retry_ms: 30_000,
            robots_attempts: 3,
            page_attempts: 3,
            retry_ms: 30_000,
            max_retry_after_ms: 3_600_000,
            breaker_pause_ms: 60_000,
            revisit_ms: 86_400_000,
            min_revisit_ms: 3_600_000,
            max_revisit_ms: 30 * 86_400_000,
            sitemaps: true,
            max_sitemaps_per_host: 100,
            max_sitemap_urls: 50_000,
            max_sitemap_bytes: 50 * 1024 * 1024,
            allow_loopback: false,
            resolve: BTreeMap::new(),
            hosts: BTreeMap::new(),
        }
    }
}

impl CrawlerConfig {
    /// The connect timeout.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms)
    }

    /// The whole-request timeout.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
}

/// Query-time ranking weights.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RankingConfig {
    /// BM25 boost of the title field.
    pub title_boost: f32,
    /// BM25 boost of the anchor-text field.
    pub anchor_boost: f32,
    /// BM25 boost of the URL field.
    pub url_boost: f32,
    /// BM25 boost of the body field.
    pub body_boost: f32,
    /// `w` in the link boost `1 + w * ln(1 + votes)`, where each in-link is a vote.
    pub link_weight: f32,
    /// How many votes an in-link from a page of another host is worth (one from the same
    /// host is worth 1): a site's own navigation links every page, another site's link is
    /// a choice.
    pub external_link_weight: f32,
    /// Weight of the unstemmed title, headings and body relative to their stemmed fields:
    /// an exact word form adds this share of its field's score on top of the stemmed match.
    pub exact_boost: f32,
    /// `d` in the URL depth prior `1 / (1 + d * (depth - 1))`: shallower pages rank a little
    /// higher; 0 turns it off.
    pub depth_weight: f32,
    /// `p` in the PageRank boost `1 + p * log2(1 + rank * pages)`; 0 turns it off.
    pub pagerank_weight: f32,
    /// `c` in the prose prior `1 - c * (2s - 1)`, applied when a share `s` over one half of a
    /// page's text is in `<pre>` code listings: source listings rank below the prose about
    /// them; 0 turns it off.
    pub code_weight: f32,
    /// `t` in the thin-page prior `1 - t * (1 - words / 50)` of a page with fewer than 50
    /// words of text (a stub that only its title matches); 0 turns it off.
    pub thin_weight: f32,
    /// Share of the title and URL boosts given to a title or URL word that abbreviates a
    /// query word (its first 3 or 4 letters: `env` for "environment"); 0 turns it off.
    pub abbreviation_weight: f32,
}

impl Default for RankingConfig {
    fn default() -> Self {
        Self {
            title_boost: 3.0,
            anchor_boost: 2.0,
            url_boost: 1.5,
            body_boost: 1.0,
            link_weight: 0.2,
            external_link_weight: 4.0,
            exact_boost: 0.5,
            depth_weight: 0.1,
            pagerank_weight: 0.2,
            code_weight: 0.5,
            thin_weight: 0.5,
            abbreviation_weight: 2.0,
        }
    }
}

/// The search server's settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchdConfig {
    /// Address to listen on.
    pub listen: String,
    /// Results per page in the HTML pages.
    pub per_page: usize,
    /// Longest query accepted, in bytes.
    pub max_query_len: usize,
    /// Connections open at once; more clients wait for one to close.
    pub max_connections: usize,
    /// Time a client has to send a request's headers (and the longest an idle kept-alive
    /// connection stays open), in milliseconds.
    pub header_timeout_ms: u64,
    /// Time to read a request and answer it, in milliseconds; past it the answer is `503`.
    pub request_timeout_ms: u64,
    /// Searches (and other index or store reads) running at once; more wait for a slot.
    pub max_searches: usize,
}

impl Default for SearchdConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            per_page: 10,
            max_query_len: 512,
            max_connections: 1024,
            header_timeout_ms: 10_000,
            request_timeout_ms: 30_000,
            max_searches: 16,
        }
    }
}

/// Whether `token` can be a robots.txt product token (RFC 9309 2.2.1): a non-empty run of
/// `A-Z`, `a-z`, `_` and `-`. A crawler whose token is anything else matches no group.
pub fn is_product_token(token: &str) -> bool {
    !token.is_empty() && token.bytes().all(is_product_token_byte)
}

/// A byte a product token may hold: `A-Z`, `a-z`, `_`, `-`.
pub fn is_product_token_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'-'
}

impl Config {
    /// Reads a TOML file, or the defaults when `path` is `None`.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        let Some(path) = path else {
            return Ok(Self::default());
        };
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        let config: Config = toml::from_str(&text).map_err(|source| ConfigError::Parse {
            path: shown,
            source,
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks ranges the types cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.crawler.validate()?;
        let searchd = &self.searchd;
        for (key, value) in [
            ("per_page", searchd.per_page as u64),
            ("max_connections", searchd.max_connections as u64),
            ("max_searches", searchd.max_searches as u64),
            ("header_timeout_ms", searchd.header_timeout_ms),
            ("request_timeout_ms", searchd.request_timeout_ms),
        ] {
            if value == 0 {
                return Err(ConfigError::Invalid(format!(
                    "searchd.{key} must be at least 1"
                )));
            }
        }
        Ok(())
    }
}

/// Compiles the URL patterns of config `key` into one set (`None` when there are none); an
/// error names the key and the pattern.
pub fn url_patterns(key: &str, patterns: &[String]) -> Result<Option<RegexSet>, ConfigError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    for pattern in patterns {
        Regex::new(pattern).map_err(|error| {
            ConfigError::Invalid(format!("crawler.{key}: pattern {pattern:?}: {error}"))
        })?;
    }
    RegexSet::new(patterns)
        .map(Some)
        .map_err(|error| ConfigError::Invalid(format!("crawler.{key}: {error}")))
}

impl CrawlerConfig {
    /// Checks ranges the types cannot express and compiles the URL patterns.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let c = self;
        if !is_product_token(&c.agent) {
            return Err(ConfigError::Invalid(format!(
                "crawler.agent {:?} must be a non-empty token of letters, '-' and '_' (RFC 9309)",
                c.agent
            )));
        }
        if c.page_attempts == 0 {
            return Err(ConfigError::Invalid(
                "crawler.page_attempts must be at least 1".into(),
            ));
        }
        if c.min_revisit_ms > c.max_revisit_ms {
            return Err(ConfigError::Invalid(
                "crawler.min_revisit_ms must not exceed crawler.max_revisit_ms".into(),
            ));
        }
        if c.host_concurrency == 0 || c.max_in_flight == 0 {
            return Err(ConfigError::Invalid(
                "concurrency limits must be at least 1".into(),
            ));
        }
        if c.max_body_bytes < 1024 {
            return Err(ConfigError::Invalid(
                "crawler.max_body_bytes must be at least 1024".into(),
            ));
        }
        url_patterns("deny_urls", &c.deny_urls)?;
        url_patterns("allow_urls", &c.allow_urls)?;
        for (host, settings) in &c.hosts {
            url_patterns(&format!("hosts.{host:?}.deny_urls"), &settings.deny_urls)?;
            url_patterns(&format!("hosts.{host:?}.allow_urls"), &settings.allow_urls)?;
        }
        if let Some(name) = c
            .strip_params
            .iter()
            .find(|n| n.trim_end_matches('*').is_empty())
        {
            return Err(ConfigError::Invalid(format!(
                "crawler.strip_params: {name:?} names no parameter"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let config: Config = toml::from_str(
            "[crawler]\ndelay_ms = 5\nresolve = { \"a.test\" = \"127.0.0.1\" }\n[crawler.hosts.\"docs.test\"]\ndelay_ms = 0\n",
        )
        .unwrap();
        assert_eq!(config.crawler.delay_ms, 5);
        assert_eq!(config.crawler.host_concurrency, 1);
        assert_eq!(config.crawler.resolve["a.test"].to_string(), "127.0.0.1");
        assert_eq!(config.crawler.hosts["docs.test"].delay_ms, Some(0));
        assert_eq!(config.searchd.listen, "127.0.0.1:8080");
    }

    #[test]
    fn unknown_fields_and_bad_agents_are_refused() {
        assert!(toml::from_str::<Config>("[crawler]\ndelay = 5\n").is_err());
        let mut config = Config::default();
        config.crawler.agent = "bad agent".into();
        assert!(config.validate().is_err());
    }

    #[test]
    fn a_bad_url_pattern_is_named() {
        let mut config = Config::default();
        config.crawler.deny_urls = vec!["/ok/".into(), "/(unclosed".into()];
        let error = config.validate().unwrap_err().to_string();
        assert!(
            error.contains("crawler.deny_urls") && error.contains("/(unclosed"),
            "{error}"
        );
        config.crawler.deny_urls.clear();
        config.crawler.strip_params = vec!["*".into()];
        assert!(config.validate().is_err());
    }
}
