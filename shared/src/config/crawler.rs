//! [`CrawlerConfig`]: the crawler's settings as the crawler uses them, made from
//! `[crawler]` by [`RawCrawlerConfig::validate`].

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::num::{NonZeroU8, NonZeroU32, NonZeroU64, NonZeroUsize};
use std::time::Duration;

use url::Url;

use crate::kind::{ContentKind, KindSet};

use super::check::{at_least_a_mebibyte, at_least_one, host_name, millis, positive_millis};
use super::parse::quoted;
use super::render::{RawRender, RenderMode, RenderSettings};
use super::{BadValue, RawCrawlerConfig, RawHostOverride, UrlPatterns};

/// The crawler's settings, checked and typed. Each field is the `[crawler]` key of the
/// same name (durations without their `_ms`); `data/example.toml` says what each does.
#[derive(Clone, Debug)]
pub struct CrawlerConfig {
    /// robots.txt product token and product name in `User-Agent` (RFC 9309 token).
    pub agent: String,
    /// The page in `User-Agent` where site owners learn about the bot (http or https).
    pub info_url: Url,
    /// The `From` header: a contact address (a valid header value with an `@`).
    pub from: Option<String>,
    /// Least gap between two requests to one host (`delay_ms`).
    pub delay: Duration,
    /// Most requests in flight to one host.
    pub host_concurrency: NonZeroUsize,
    /// Most requests in flight overall.
    pub max_in_flight: NonZeroUsize,
    /// Most requests in flight to one IP address, all its hosts together; `None`: no
    /// per-address limit (`ip_concurrency = 0`).
    pub ip_concurrency: Option<NonZeroUsize>,
    /// Least gap between two requests to one IP address (`ip_delay_ms`).
    pub ip_delay: Duration,
    /// Stop after this many pages are stored (0: no limit).
    pub max_pages: u64,
    /// Do not queue links deeper than this from a seed.
    pub max_depth: u32,
    /// Most URLs queued per host over the life of the store (0: no budget).
    pub max_pages_per_host: u64,
    /// Most distinct query strings queued per path (0: no cap).
    pub max_queries_per_path: u32,
    /// Hosts never crawled, with their subdomains: lowercase, punycode, `*.` dropped.
    pub deny_hosts: Vec<String>,
    /// A URL matching one is never queued.
    pub deny_urls: UrlPatterns,
    /// When not empty, only URLs matching one are queued.
    pub allow_urls: UrlPatterns,
    /// Query parameters removed from every URL (a trailing `*` matches a prefix).
    pub strip_params: Vec<String>,
    /// Redirects followed from one URL.
    pub max_redirects: u8,
    /// Largest body read, in bytes (at least 1024).
    pub max_body_bytes: usize,
    /// The kinds of content read, unless a host says otherwise ([`CrawlerConfig::kinds_for`]).
    pub kinds: KindSet,
    /// Largest image read, in bytes (at least 1024).
    pub max_image_bytes: usize,
    /// Largest PDF read, in bytes (at least 1024).
    pub max_pdf_bytes: usize,
    /// Whether HTML pages are rendered, unless a host says otherwise
    /// ([`CrawlerConfig::render_for`]).
    pub render: RenderMode,
    /// The bounds of every render (the `render_*` keys).
    pub rendering: RenderSettings,
    /// TCP connect timeout (`connect_timeout_ms`, at least 1 ms).
    pub connect_timeout: Duration,
    /// Longest wait for an answer's headers (`header_timeout_ms`, at least 1 ms).
    pub header_timeout: Duration,
    /// Deadline of a whole request, body included (`request_timeout_ms`, at least 1 ms).
    pub request_timeout: Duration,
    /// Least body transfer rate, bytes per second over every `transfer_window`
    /// (`min_transfer_rate`; `None`: no minimum).
    pub min_transfer_rate: Option<NonZeroU64>,
    /// The span the transfer rate is measured over (`transfer_window_ms`, at least 1 ms).
    pub transfer_window: Duration,
    /// Largest robots.txt `Crawl-delay` honoured (`max_crawl_delay_ms`).
    pub max_crawl_delay: Duration,
    /// First wait before retrying a failed robots.txt, doubled per failure
    /// (`robots_retry_ms`).
    pub robots_retry: Duration,
    /// robots.txt attempts per host in one run.
    pub robots_attempts: NonZeroU32,
    /// Attempts at one page before its failure is stored.
    pub page_attempts: NonZeroU8,
    /// First wait before a host is asked again after a failed page fetch, doubled per
    /// failure of the host in a row (`retry_ms`).
    pub retry: Duration,
    /// Longest `Retry-After` honoured (`max_retry_after_ms`).
    pub max_retry_after: Duration,
    /// How long a host whose circuit breaker trips is left alone (`breaker_pause_ms`).
    pub breaker_pause: Duration,
    /// Interval before the first revisit of a stored page (`revisit_ms`).
    pub revisit: Duration,
    /// Shortest interval between two visits of one page (`min_revisit_ms`).
    pub min_revisit: Duration,
    /// Longest interval between two visits of one page (`max_revisit_ms`), never below
    /// `min_revisit`.
    pub max_revisit: Duration,
    /// Read the sitemaps that robots.txt names.
    pub sitemaps: bool,
    /// Most sitemap files fetched per host in one run.
    pub max_sitemaps_per_host: u32,
    /// Most URLs taken from one sitemap file.
    pub max_sitemap_urls: usize,
    /// Largest sitemap read, in bytes after decompression.
    pub max_sitemap_bytes: usize,
    /// Allow loopback addresses.
    pub allow_loopback: bool,
    /// The store's block cache, in bytes (at least 1 MiB).
    pub store_cache_bytes: usize,
    /// The store's memtables together, in bytes (at least 1 MiB).
    pub store_write_buffer_bytes: usize,
    /// Fixed answers: host name (lowercase, punycode) -> address.
    pub resolve: BTreeMap<String, IpAddr>,
    /// Per-host settings, by host name (lowercase, punycode).
    pub hosts: BTreeMap<String, HostOverride>,
}

/// One host's own settings (`[crawler.hosts."NAME"]`), checked and typed.
#[derive(Clone, Debug, Default)]
pub struct HostOverride {
    /// Least gap between two requests, instead of `delay`.
    pub delay: Option<Duration>,
    /// Most requests in flight, instead of `host_concurrency`.
    pub concurrency: Option<NonZeroUsize>,
    /// Most URLs queued for this host over the life of the store, instead of
    /// `max_pages_per_host` (0: no budget).
    pub max_pages: Option<u64>,
    /// A URL of this host matching one is never queued (on top of `deny_urls`).
    pub deny_urls: UrlPatterns,
    /// When not empty, only URLs of this host matching one are queued (on top of
    /// `allow_urls`).
    pub allow_urls: UrlPatterns,
    /// The kinds of content read from this host, instead of `kinds`.
    pub kinds: Option<KindSet>,
    /// Whether this host's pages are rendered, instead of `render`.
    pub render: Option<RenderMode>,
}

impl CrawlerConfig {
    /// The kinds of content read from `host` (lowercase, punycode): its own, else the
    /// crawl's.
    pub fn kinds_for(&self, host: &str) -> KindSet {
        self.hosts
            .get(host)
            .and_then(|host| host.kinds)
            .unwrap_or(self.kinds)
    }

    /// Whether `host`'s (lowercase, punycode) pages are rendered: its own mode, else the
    /// crawl's.
    pub fn render_for(&self, host: &str) -> RenderMode {
        self.hosts
            .get(host)
            .and_then(|host| host.render)
            .unwrap_or(self.render)
    }

    /// Whether any host's pages may be rendered (a browser is needed).
    pub fn renders(&self) -> bool {
        self.render != RenderMode::Never
            || self
                .hosts
                .values()
                .any(|host| host.render.is_some_and(|mode| mode != RenderMode::Never))
    }
}

impl RawCrawlerConfig {
    /// Checks every value and gives the typed settings; the first bad value is the error,
    /// named by its full key (`crawler.hosts."docs.test".deny_urls[2]`).
    pub fn validate(&self) -> Result<CrawlerConfig, BadValue> {
        let key = |name: &str| format!("crawler.{name}");
        let c = self;
        if !super::is_product_token(&c.agent) {
            return Err(BadValue::new(
                key("agent"),
                format!(
                    "{:?} is not a robots.txt product token: letters, '-' and '_' only (RFC 9309)",
                    c.agent
                ),
            ));
        }
        let (min_revisit, max_revisit) = (millis(c.min_revisit_ms), millis(c.max_revisit_ms));
        if min_revisit > max_revisit {
            return Err(BadValue::new(
                key("min_revisit_ms"),
                format!(
                    "{} is more than crawler.max_revisit_ms ({})",
                    c.min_revisit_ms, c.max_revisit_ms
                ),
            ));
        }
        for (name, bytes) in [
            ("max_body_bytes", c.max_body_bytes),
            ("max_image_bytes", c.max_image_bytes),
            ("max_pdf_bytes", c.max_pdf_bytes),
        ] {
            if bytes < 1024 {
                return Err(BadValue::new(key(name), "must be at least 1024"));
            }
        }
        if let Some(name) = c
            .strip_params
            .iter()
            .find(|n| n.trim_end_matches('*').is_empty())
        {
            return Err(BadValue::new(
                key("strip_params"),
                format!("{name:?} names no parameter"),
            ));
        }
        Ok(CrawlerConfig {
            agent: c.agent.clone(),
            info_url: info_url(&key("info_url"), &c.info_url)?,
            from: c
                .from
                .as_deref()
                .map(|from| contact(&key("from"), from))
                .transpose()?,
            delay: millis(c.delay_ms),
            host_concurrency: at_least_one(&key("host_concurrency"), c.host_concurrency)?,
            max_in_flight: at_least_one(&key("max_in_flight"), c.max_in_flight)?,
            ip_concurrency: NonZeroUsize::new(c.ip_concurrency),
            ip_delay: millis(c.ip_delay_ms),
            max_pages: c.max_pages,
            max_depth: c.max_depth,
            max_pages_per_host: c.max_pages_per_host,
            max_queries_per_path: c.max_queries_per_path,
            deny_hosts: deny_hosts(&key("deny_hosts"), &c.deny_hosts)?,
            deny_urls: UrlPatterns::compile(&key("deny_urls"), &c.deny_urls)?,
            allow_urls: UrlPatterns::compile(&key("allow_urls"), &c.allow_urls)?,
            strip_params: c.strip_params.clone(),
            max_redirects: c.max_redirects,
            max_body_bytes: c.max_body_bytes,
            kinds: kinds(&key("kinds"), &c.kinds)?,
            max_image_bytes: c.max_image_bytes,
            max_pdf_bytes: c.max_pdf_bytes,
            render: RenderMode::parse(&key("render"), &c.render)?,
            rendering: RawRender {
                browser: &c.render_browser,
                timeout_ms: c.render_timeout_ms,
                settle_ms: c.render_settle_ms,
                max_requests: c.render_max_requests,
                concurrency: c.render_concurrency,
                recycle_pages: c.render_recycle_pages,
                max_browser_bytes: c.render_max_browser_bytes,
                fetch: &c.render_fetch,
            }
            .validate(key)?,
            connect_timeout: positive_millis(&key("connect_timeout_ms"), c.connect_timeout_ms)?,
            header_timeout: positive_millis(&key("header_timeout_ms"), c.header_timeout_ms)?,
            request_timeout: positive_millis(&key("request_timeout_ms"), c.request_timeout_ms)?,
            min_transfer_rate: NonZeroU64::new(c.min_transfer_rate),
            transfer_window: positive_millis(&key("transfer_window_ms"), c.transfer_window_ms)?,
            max_crawl_delay: millis(c.max_crawl_delay_ms),
            robots_retry: millis(c.robots_retry_ms),
            robots_attempts: at_least_one(&key("robots_attempts"), c.robots_attempts)?,
            page_attempts: at_least_one(&key("page_attempts"), c.page_attempts)?,
            retry: millis(c.retry_ms),
            max_retry_after: millis(c.max_retry_after_ms),
            breaker_pause: millis(c.breaker_pause_ms),
            revisit: millis(c.revisit_ms),
            min_revisit,
            max_revisit,
            sitemaps: c.sitemaps,
            max_sitemaps_per_host: c.max_sitemaps_per_host,
            max_sitemap_urls: c.max_sitemap_urls,
            max_sitemap_bytes: c.max_sitemap_bytes,
            allow_loopback: c.allow_loopback,
            store_cache_bytes: at_least_a_mebibyte(&key("store_cache_bytes"), c.store_cache_bytes)?,
            store_write_buffer_bytes: at_least_a_mebibyte(
                &key("store_write_buffer_bytes"),
                c.store_write_buffer_bytes,
            )?,
            resolve: by_host(&key("resolve"), &c.resolve, |ip, _| Ok(*ip))?,
            hosts: by_host(&key("hosts"), &c.hosts, RawHostOverride::validate)?,
        })
    }
}

impl RawHostOverride {
    /// Checks one host's settings; `key` is the host's own key
    /// (`crawler.hosts."docs.test"`).
    fn validate(&self, key: &str) -> Result<HostOverride, BadValue> {
        let key = |name: &str| format!("{key}.{name}");
        Ok(HostOverride {
            delay: self.delay_ms.map(millis),
            concurrency: self
                .concurrency
                .map(|n| at_least_one(&key("concurrency"), n))
                .transpose()?,
            max_pages: self.max_pages,
            deny_urls: UrlPatterns::compile(&key("deny_urls"), &self.deny_urls)?,
            allow_urls: UrlPatterns::compile(&key("allow_urls"), &self.allow_urls)?,
            kinds: self
                .kinds
                .as_deref()
                .map(|names| kinds(&key("kinds"), names))
                .transpose()?,
            render: self
                .render
                .as_deref()
                .map(|name| RenderMode::parse(&key("render"), name))
                .transpose()?,
        })
    }
}

/// A table keyed by host name, each name normalized and each value checked by `check` (which
/// gets the entry's full key). Two names for one host are refused.
fn by_host<R, T>(
    key: &str,
    table: &BTreeMap<String, R>,
    check: impl Fn(&R, &str) -> Result<T, BadValue>,
) -> Result<BTreeMap<String, T>, BadValue> {
    let mut checked = BTreeMap::new();
    for (name, value) in table {
        let entry = format!("{key}.{}", quoted(name));
        let host = host_name(&entry, name)?;
        if checked.contains_key(&host) {
            return Err(BadValue::new(
                entry,
                format!("{host} is already given under another spelling"),
            ));
        }
        checked.insert(host, check(value, &entry)?);
    }
    Ok(checked)
}

/// A `kinds` list: known names, at least one.
fn kinds(key: &str, names: &[String]) -> Result<KindSet, BadValue> {
    let mut kinds = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let kind = ContentKind::from_name(name).ok_or_else(|| {
            let known: Vec<_> = ContentKind::ALL.iter().map(|k| k.name()).collect();
            BadValue::new(
                format!("{key}[{i}]"),
                format!(
                    "{name:?} is not a kind of content (one of {})",
                    known.join(", ")
                ),
            )
        })?;
        kinds.push(kind);
    }
    if kinds.is_empty() {
        return Err(BadValue::new(
            key,
            "names no kind of content: nothing would be read",
        ));
    }
    Ok(KindSet::of(&kinds))
}

/// The `deny_hosts` names, normalized (`*.` means the same as the name alone).
fn deny_hosts(key: &str, names: &[String]) -> Result<Vec<String>, BadValue> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| host_name(&format!("{key}[{i}]"), name.trim().trim_start_matches("*.")))
        .collect()
}

/// `info_url`: an absolute http or https URL.
fn info_url(key: &str, text: &str) -> Result<Url, BadValue> {
    let url = Url::parse(text)
        .map_err(|error| BadValue::new(key, format!("{text:?} is not a URL: {error}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadValue::new(
            key,
            format!("{text:?} is not an http or https URL"),
        ));
    }
    Ok(url)
}

/// `from`: a contact address that can be sent as a header value.
fn contact(key: &str, from: &str) -> Result<String, BadValue> {
    let from = from.trim();
    let printable = from.bytes().all(|b| b == b' ' || b.is_ascii_graphic());
    if !printable || !from.contains('@') {
        return Err(BadValue::new(
            key,
            format!("{from:?} is not a contact address (an email address, ASCII)"),
        ));
    }
    Ok(from.to_string())
}
