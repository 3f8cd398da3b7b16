//! The config file's shape: what serde reads, before any value is checked.
//!
//! Every key has a default (the `Default` impls are the documented defaults, and
//! `data/example.toml` repeats them), and an unknown key is an error. Durations are `*_ms`
//! integers and URLs and patterns strings, as an operator writes them;
//! [`RawConfig::validate`](super::RawConfig::validate) makes typed values of them.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::Deserialize;

use super::RankingConfig;

/// The whole file, as written: a section per program.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawConfig {
    /// The crawler.
    pub crawler: RawCrawlerConfig,
    /// Query-time ranking, used by searchd.
    pub ranking: RankingConfig,
    /// The search server.
    pub searchd: RawSearchdConfig,
}

/// The crawler's settings, as written (`[crawler]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawCrawlerConfig {
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
    /// The kinds of content read (`"html"`, `"image"`, `"pdf"`): an answer of another kind
    /// is stored with its status and headers only, and images are fetched only when
    /// `"image"` is on.
    pub kinds: Vec<String>,
    /// Largest image read, in bytes; a longer one is cut, and only its size is read.
    pub max_image_bytes: usize,
    /// Largest PDF read, in bytes; a longer one is stored as too large, unread.
    pub max_pdf_bytes: usize,
    /// Run HTML pages' scripts in a headless browser before reading links and text:
    /// `"never"` (the default), `"always"`, or `"auto"` (render a sample of each host's
    /// pages and go on only where scripts add links or text).
    pub render: String,
    /// The browser program (Debian's `chromium`).
    pub render_browser: String,
    /// Wall-clock deadline of one page's render, in milliseconds; past it the page is stored
    /// unrendered, with the reason.
    pub render_timeout_ms: u64,
    /// How long a rendered page must go without a request answered, once loaded, before it
    /// is read, in milliseconds (scripts that fetch after the load event have this long).
    pub render_settle_ms: u64,
    /// Most requests one rendered page may make; past it every further request is refused.
    pub render_max_requests: u32,
    /// Most pages rendered at once.
    pub render_concurrency: usize,
    /// The browser is replaced after this many pages.
    pub render_recycle_pages: u32,
    /// The browser is replaced once its processes use more memory than this, in bytes.
    pub render_max_browser_bytes: u64,
    /// The request types a rendered page may make (the DevTools protocol's names:
    /// `document`, `stylesheet`, `script`, `xhr`, `fetch`, `image`, `font`, `media`, ...);
    /// others are refused without a request. WebSockets are always refused.
    pub render_fetch: Vec<String>,
    /// TCP connect timeout, in milliseconds.
    pub connect_timeout_ms: u64,
    /// Longest wait for an answer's headers once connected, in milliseconds.
    pub header_timeout_ms: u64,
    /// Deadline of a whole request (connecting, headers and the whole body), in milliseconds.
    pub request_timeout_ms: u64,
    /// Least transfer rate of a body, in bytes per second over every `transfer_window_ms`
    /// (0: none): a server that drips slower is cut off.
    pub min_transfer_rate: u64,
    /// The span the transfer rate is measured over, in milliseconds.
    pub transfer_window_ms: u64,
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
    /// doubled at each further failure of the host in a row (any URL of it; an answer resets
    /// it). A `Retry-After` answer wins. The failed URL goes behind the host's other URLs.
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
    /// The store's block cache, in bytes (shared by every column family; index and filter
    /// blocks included).
    pub store_cache_bytes: usize,
    /// The store's memtables, all column families together, in bytes.
    pub store_write_buffer_bytes: usize,
    /// Fixed name -> address answers, like curl's `--resolve`, for staging hosts and tests.
    /// They still pass the address policy (loopback needs `allow_loopback`).
    pub resolve: BTreeMap<String, IpAddr>,
    /// Per-host overrides of delay and concurrency, for sites you own.
    pub hosts: BTreeMap<String, RawHostOverride>,
}

/// Settings for one host (a site you own), as written (`[crawler.hosts."NAME"]`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHostOverride {
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
    /// The kinds of content read from this host, instead of `kinds`.
    pub kinds: Option<Vec<String>>,
    /// Whether this host's pages are rendered, instead of `render`.
    pub render: Option<String>,
}

impl Default for RawCrawlerConfig {
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
            kinds: vec!["html".into(), "pdf".into()],
            max_image_bytes: 8 * 1024 * 1024,
            max_pdf_bytes: 32 * 1024 * 1024,
            render: "never".into(),
            render_browser: "chromium".into(),
            render_timeout_ms: 15_000,
            render_settle_ms: 500,
            render_max_requests: 100,
            render_concurrency: 2,
            render_recycle_pages: 500,
            render_max_browser_bytes: 2 << 30,
            render_fetch: ["document", "stylesheet", "script", "xhr", "fetch"]
                .map(String::from)
                .to_vec(),
            connect_timeout_ms: 10_000,
            header_timeout_ms: 30_000,
            request_timeout_ms: 120_000,
            min_transfer_rate: 1024,
            transfer_window_ms: 10_000,
            max_crawl_delay_ms: 30_000,
            robots_retry_ms: 30_000,
            robots_attempts: 3,
            page_attempts: 3,
            retry_ms: 3_000,
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
            store_cache_bytes: 32 << 20,
            store_write_buffer_bytes: 64 << 20,
            resolve: BTreeMap::new(),
            hosts: BTreeMap::new(),
        }
    }
}

/// The search server's settings, as written (`[searchd]`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawSearchdConfig {
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
    /// Time a root gives a remote leaf (`searchd serve --leaf URL`) to answer each of its
    /// calls, in milliseconds; a leaf later than that leaves the answer partial.
    pub leaf_timeout_ms: u64,
    /// Answers of recent searches kept and given again while the index is unchanged (0:
    /// none kept).
    pub answer_cache: usize,
    /// A file of synonym groups, one a line (`k8s, kubernetes`), read at start and with each
    /// new index generation; none by default.
    pub synonyms: Option<std::path::PathBuf>,
    /// A file holding the token a root and its leaves share (`searchd serve --leaf` sends
    /// it, `searchd leaf` requires it); none by default: a leaf then answers any caller.
    pub leaf_token_file: Option<std::path::PathBuf>,
    /// The PEM file of this server's certificate chain: with `tls_key_file`, `searchd serve`
    /// and `searchd leaf` answer HTTPS only; none by default (plain HTTP).
    pub tls_cert_file: Option<std::path::PathBuf>,
    /// The PEM file of the private key of `tls_cert_file`'s certificate.
    pub tls_key_file: Option<std::path::PathBuf>,
    /// The PEM file of the certificate authorities a root trusts for its `https://` leaves,
    /// in place of the system's; none by default.
    pub leaf_ca_file: Option<std::path::PathBuf>,
}

impl Default for RawSearchdConfig {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".into(),
            per_page: 10,
            max_query_len: 512,
            max_connections: 1024,
            header_timeout_ms: 10_000,
            request_timeout_ms: 30_000,
            max_searches: 16,
            leaf_timeout_ms: 2_000,
            answer_cache: 1_000,
            synonyms: None,
            leaf_token_file: None,
            tls_cert_file: None,
            tls_key_file: None,
            leaf_ca_file: None,
        }
    }
}
