//! `testweb`: the local test web. One HTTP server inside the test process, bound to
//! 127.0.0.1 only, that answers for many virtual hosts by the `Host` header and logs every
//! request it receives.
//!
//! Tests map the `*.test` names to 127.0.0.1 through the crawler's `resolve` config (the list
//! is [`TestWeb::hosts`]), so URLs look like `http://sample.test:PORT/`. Nothing here ever
//! connects anywhere: redirects to other addresses are only `Location` headers.
//!
//! | host | module | what it serves |
//! |---|---|---|
//! | `sample.test` | [`sample`] | the static site in `data/site/` (robots.txt included; `/dir/` serves `dir/index.html`; unknown paths 404). Its special pages and the exact set a crawl stores are the `SAMPLE_*` constants, documented in `data/site/README.md` |
//! | `ranked.test` | [`ranked`] | 21 generated pages: 10 field notes with equal text relevance for [`RANKED_WORD`] and in-link counts 10, 9, ... 1 |
//! | `big.test` | [`big`] | [`BIG_SITE_PAGES`] generated pages in a link lattice (next page, binary tree, 3 pseudo-random links); robots.txt allows all; deterministic |
//! | `norobots.test` | [`robots_hosts`] | robots.txt 404; the 4 pages of [`NOROBOTS_PATHS`] |
//! | `forbidden.test` | [`robots_hosts`] | robots.txt 403; pages exist, a crawler must fetch none |
//! | `flaky.test` | [`robots_hosts`] | robots.txt 503; pages exist, a crawler must not crawl the host now |
//! | `locked.test` | [`robots_hosts`] | robots.txt 401; pages exist, a crawler must fetch none |
//! | `down.test` | [`robots_hosts`] | 80 pages that all answer 500 (circuit breakers) |
//! | `busy.test` | [`robots_hosts`] | robots.txt 429 + `Retry-After: 1` once, then rules |
//! | `moved.test` | [`robots_hosts`] | robots.txt redirected twice to rules that disallow [`MOVED_DISALLOWED`] |
//! | `fresh.test` | [`fresh`] | `ETag`/`Last-Modified` and 304s, an edition the test changes, a page busy once (503 + `Retry-After`), meta keywords and revisit-after |
//! | `maps.test` | [`sitemaps`] | robots.txt `Sitemap:` lines: an index, a gzip sitemap, a text sitemap, listing pages no link reaches |
//! | `meta.test` | [`directives`] | `X-Robots-Tag` for all, for us, for another robot; META tags combined; `rel` on links |
//! | `charsets.test` | [`charsets`] | Shift_JIS pages declared by header and by meta, a Latin-1 page declared by meta |
//! | `redirect.test` | [`redirects`] | `/start` 301 -> `/middle` 302 -> `/end`; `/loop-a` <-> `/loop-b`; `/offsite` -> `norobots.test`; `/to-private` -> `http://10.0.0.1/`; `/into-secret` -> `/via-secret` -> `/secret/page.html` (robots.txt disallows `/secret/`); `/relative`, `/meta-refresh`, `/chain/1..10` |
//! | `copies.test` | [`copies`] | a long story and its near-duplicate (another date line, navigation and footer), and a different story with the same boilerplate; an article under two short URLs and the long one they name as `rel=canonical` |
//! | `hostile.test` | [`hostile`] | a page that tries to run script every way a page can (title, head, body, `onload`, `onerror`, `onfocus`, `javascript:` link), each setting [`HOSTILE_MARKER`] if it ran, with a meta refresh to the live page and a relative link; and a harmless page with the same word |
//! | `stalls.test` | [`stalls`] | `/hang` (never answers) linked before 10 ordinary pages, `/drip` (a byte a second), `/trickle` (endless but fast), `/big` (256 KiB), `/bomb` (64 MiB gzipped to 64 KiB) |
//! | `traps.test` | [`traps`] | endless `/calendar/YYYY/MM`, repeating `/a/b/a/...`, endless `/facets?n=N`, `/slow` (2 s), `/huge` (endless streamed body), `/gzip`, `/latin1`, `/error` (500) |
//! | `images.test` | [`images`] | a gallery of images made by the `image` crate: good, poor (tiny, low JPEG quality), the same bytes at two URLs, an `og:image`, a `<picture>`, a linked image file, a GIF served as JPEG, HTML served as PNG, PNGs declaring 16384² and 100000² pixels, an endless image, one robots.txt forbids |
//! | `pdfs.test` | [`pdfs`] | a library of PDFs written as raw PDF syntax: a 3-page document with a title, one served as an octet stream, HTML served as a PDF, an encrypted file, a flate bomb, a page tree that is its own parent, a truncated file |
//! | `scripts.test` | [`scripts`] | pages whose links and text only scripts write, for rendering: subresources robots.txt forbids, an image, a font and a WebSocket blocked by default, endless requests (`/loop`), an endless script (`/endless`) and the page after it |
//! | `router.test` | [`router`] | a single-page app: every route (`/index.html`, `/a.html`, `/b.html`, `/c.html`, any `.html`) answers one shell whose script writes the route's title, text and links from `location.pathname`; a query variant of a route, two unknown routes, a broken app whose script throws, a route writing 8 MiB of text and one writing 100,000 links |
//! | `languages.test` | [`languages`] | pages in French, German (under a template saying `lang="en"`), English, Spanish, Russian, Greek, Hebrew, Arabic and Japanese; three translations naming each other by `hreflang`; digits only; a hostile `lang`; pages whose `<noscript>` refresh sends browsers without scripts to one fallback page |
//! | `dates.test` | [`dated`] | pages dated by JSON-LD (an `@graph`, a time zone), article meta tags, `<time>` in the content (one in the nav ignored), the URL's path, `Last-Modified` alone, nothing; a page of dates not to believe (2090, 70 KiB of JSON-LD, "yesterday", February 30th) |
//! | `almanac.test` | [`dated`] | a second site of `dates.test`'s word: two dated pages, the older saying the word most |
//! | `soak-N.test` | [`soak`] | only with [`TestWeb::start_with`]: a family of generated hosts sized by a [`SoakWeb`] (lattices of pages; slow, failing, `Crawl-delay` and huge hosts; links across hosts and into `stalls.test` and `traps.test`) |
//!
//! Any other host name answers 404.
//!
//! ```no_run
//! # async fn example() {
//! let web = testweb::TestWeb::start().await;
//! let seed = web.url("sample.test", "/");
//! // ... crawl `seed` with every name of `web.hosts()` resolving to 127.0.0.1 ...
//! assert_eq!(web.request_count("sample.test", "/robots.txt"), 1);
//! assert!(web.requests_to("sample.test").under("/private/").is_empty());
//! # }
//! ```

pub mod big;
mod certs;
pub mod charsets;
pub mod copies;
pub mod dated;
pub mod directives;
pub mod fresh;
mod gzip;
mod host_requests;
pub mod hostile;
pub mod images;
pub mod languages;
pub mod pdfs;
mod prometheus;
pub mod ranked;
pub mod redirects;
mod redis_sentinel;
mod redis_server;
mod reply;
mod request_log;
pub mod robots_hosts;
pub mod router;
pub mod sample;
pub mod scripts;
pub mod sitemaps;
pub mod soak;
pub mod stalls;
pub mod traps;
mod words;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::sync::watch;
use warp::Filter;
use warp::http::HeaderMap;
use warp::path::FullPath;
use warp::reply::Response;

pub use big::{BIG_SITE_PAGES, big_site_paths};
pub use certs::TestCerts;
pub use charsets::{CHARSET_PATHS, LATIN1_META_TEXT, SJIS_HEADER_TEXT, SJIS_META_TEXT};
pub use copies::{
    COPIES_BEHIND_NEAR_DUPLICATE, COPIES_CANONICAL, COPIES_CANONICAL_COPIES, COPIES_CANONICAL_WORD,
    COPIES_NEAR_PAIR, COPIES_OTHER,
};
pub use dated::{
    ARCHIVE_AUTUMN, ARCHIVE_SPRING, DATED_HOSTILE, DATED_JSON_LD, DATED_META, DATED_NONE,
    DATED_PAGES, DATED_PLAIN, DATED_SHARED_WORD, DATED_TIME, DATED_URL, DATED_WORDS,
};
pub use directives::{META_FOLLOWED, META_NOINDEX, META_NOT_FOLLOWED};
pub use fresh::{
    FRESH_PATHS, META_KEYWORDS, STATIC_LAST_MODIFIED, WITHDRAWN_PATH, WITHDRAWN_WORD, news_word,
};
pub use host_requests::{Gap, HostRequests};
pub use hostile::{
    HOSTILE_BEACON, HOSTILE_CALM, HOSTILE_HEADING, HOSTILE_LINK_ID, HOSTILE_MARKER,
    HOSTILE_MISSING_IMAGE, HOSTILE_PAGE, HOSTILE_REFRESH, HOSTILE_RELATIVE_LINK_ID, HOSTILE_TITLE,
    HOSTILE_WORD,
};
pub use images::{
    GalleryImage, IMAGES_BOAT_WORD, IMAGES_DISALLOWED, IMAGES_HOSTILE, IMAGES_JPEG_QUALITIES,
    IMAGES_READ,
};
pub use languages::{
    LANG_ARABIC, LANG_DIGITS, LANG_ENGLISH, LANG_FRENCH, LANG_GERMAN, LANG_GREEK, LANG_HEBREW,
    LANG_HOSTILE, LANG_JAPANESE, LANG_NOSCRIPT_FALLBACK, LANG_NOSCRIPT_PAGES, LANG_NOSCRIPT_WORDS,
    LANG_RUSSIAN, LANG_SCHON, LANG_SHARED_WORD, LANG_SPANISH,
};
pub use pdfs::{
    PDFS_FAKE_WORD, PDFS_HOSTILE, PDFS_LOGBOOK_WORD, PDFS_TIDES_TITLE, PDFS_TIDES_WORDS,
};
pub use prometheus::Prometheus;
pub use ranked::{RANKED_DOCS, RANKED_WORD, ranked_docs_by_in_links, ranked_site_paths};
pub use redirects::{PRIVATE_ADDRESS_URL, REDIRECT_CHAIN_LEN};
pub use redis_sentinel::RedisSentinels;
pub use redis_server::RedisServer;
pub use request_log::{MAX_LOGGED_REQUESTS, Request};
pub use robots_hosts::{
    BUSY_PATHS, DOWN_PAGES, FLAKY_PATHS, FORBIDDEN_PATHS, LOCKED_PATHS, MOVED_DISALLOWED,
    MOVED_PATHS, NOROBOTS_PATHS,
};
pub use router::{
    ROUTER_BROKEN, ROUTER_CROSS_ORIGIN, ROUTER_HOME, ROUTER_HUGE, ROUTER_HUGE_BYTES, ROUTER_MANY,
    ROUTER_MANY_LINKS, ROUTER_NOT_FOUND_WORD, ROUTER_ROUTES, ROUTER_SHELL_WORD, ROUTER_UNKNOWN,
    ROUTER_VARIANT, ROUTER_WANDER, ROUTER_WANDER_TO, Route,
};
pub use sample::{
    SAMPLE_BASE_HREF, SAMPLE_BEHIND_NOFOLLOW, SAMPLE_BEHIND_NOINDEX, SAMPLE_BEHIND_NOINDEX_WORD,
    SAMPLE_DISALLOWED, SAMPLE_DUPLICATE_WORD, SAMPLE_DUPLICATES, SAMPLE_NEVER_FETCHED,
    SAMPLE_NOFOLLOW, SAMPLE_NOINDEX, SAMPLE_NOINDEX_WORD, SAMPLE_ONLY_VIA_BASE, SAMPLE_RANKED_PAIR,
    SAMPLE_RANKED_WORD, SAMPLE_REL_NOFOLLOW_TARGET, SAMPLE_STORED, SAMPLE_WITH_QUERY,
    sample_site_dir,
};
pub use scripts::{
    SCRIPTS_AFTER_ENDLESS, SCRIPTS_AFTER_ENDLESS_WORD, SCRIPTS_ALLOWED_SUBRESOURCES,
    SCRIPTS_BLOCKED_BY_DEFAULT, SCRIPTS_BUILT, SCRIPTS_DISALLOWED, SCRIPTS_DISALLOWED_PREFIX,
    SCRIPTS_ENDLESS, SCRIPTS_ENDLESS_WORD, SCRIPTS_FORBIDDEN_WORDS, SCRIPTS_HOME_WORDS,
    SCRIPTS_LOOP, SCRIPTS_LOOP_WORD, SCRIPTS_STATIC_WORD, SCRIPTS_TICK, SCRIPTS_WORDS_AFTER_RENDER,
    ScriptedPage,
};
pub use sitemaps::{MAPS_DISALLOWED, MAPS_PAGES, MAPS_SITEMAPS};
pub use soak::{SoakAnswer, SoakWeb};
pub use stalls::{STALLS_BIG_BYTES, STALLS_BOMB_BYTES, STALLS_PAGES};
pub use traps::{GZIP_WORD, LATIN1_WORD, SLOW_DELAY, TRAPS_LINKED};

use request_log::{RequestLog, host_name};

/// Every host name the test web answers for.
pub const HOSTS: [&str; 26] = [
    "sample.test",
    "ranked.test",
    "big.test",
    "norobots.test",
    "forbidden.test",
    "flaky.test",
    "locked.test",
    "moved.test",
    "busy.test",
    "down.test",
    "redirect.test",
    "traps.test",
    "fresh.test",
    "maps.test",
    "charsets.test",
    "meta.test",
    "copies.test",
    "hostile.test",
    "stalls.test",
    "images.test",
    "pdfs.test",
    "scripts.test",
    "router.test",
    "languages.test",
    "dates.test",
    "almanac.test",
];

/// A running test web on 127.0.0.1. Dropping it stops the server: the listener closes, open
/// answers finish (an endless `/huge` body ends at its next chunk).
#[derive(Debug)]
pub struct TestWeb {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
}

/// What every request handler sees.
#[derive(Debug)]
struct Shared {
    log: RequestLog,
    port: u16,
    site: PathBuf,
    stop: watch::Receiver<bool>,
    /// The edition `fresh.test/news.html` serves.
    fresh_edition: AtomicU32,
    /// The `soak-N.test` hosts served.
    soak: SoakWeb,
}

impl TestWeb {
    /// Binds 127.0.0.1 on a free port and serves until dropped. Call it inside a tokio
    /// runtime.
    pub async fn start() -> TestWeb {
        Self::start_with(SoakWeb::NONE).await
    }

    /// The same, also serving the `soak-N.test` hosts of `soak`.
    pub async fn start_with(soak: SoakWeb) -> TestWeb {
        Self::start_on(soak, &[]).await
    }

    /// The same, listening also on each of `addresses` (loopback ones, such as 127.0.0.2) at
    /// the same port, so that a resolve table can put hosts on distinct addresses.
    pub async fn start_on(soak: SoakWeb, addresses: &[Ipv4Addr]) -> TestWeb {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("the test web binds 127.0.0.1:0");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let (stop, stopped) = watch::channel(false);
        let shared = Arc::new(Shared {
            log: RequestLog::default(),
            port: addr.port(),
            site: sample_site_dir(),
            stop: stopped,
            fresh_edition: AtomicU32::new(1),
            soak,
        });

        let handler = Arc::clone(&shared);
        let routes = warp::any()
            .and(warp::path::full())
            .and(warp::query::raw().or(warp::any().map(String::new)).unify())
            .and(warp::header::headers_cloned())
            .then(move |path: FullPath, query: String, headers: HeaderMap| {
                let shared = Arc::clone(&handler);
                async move { shared.handle(path.as_str(), &query, &headers).await }
            });

        let mut listeners = vec![listener];
        for &address in addresses {
            listeners.push(
                tokio::net::TcpListener::bind((address, addr.port()))
                    .await
                    .unwrap_or_else(|e| {
                        panic!("the test web binds {address}:{}: {e}", addr.port())
                    }),
            );
        }
        for listener in listeners {
            let mut signal = shared.stop.clone();
            let server = warp::serve(routes.clone())
                .incoming(listener)
                .graceful(async move {
                    // Resolves when `stop` turns true or the sender is dropped.
                    let _ = signal.wait_for(|stopped| *stopped).await;
                });
            tokio::spawn(server.run());
        }
        TestWeb { addr, shared, stop }
    }

    /// The port the test web listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// The socket address the test web listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://{host}:{port}{path}`; `path` starts with `/` (and may hold a query).
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port())
    }

    /// Every request received so far, in arrival order (the first [`MAX_LOGGED_REQUESTS`]).
    /// A request is logged when it arrives, before it is answered.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.log.snapshot()
    }

    /// How many requests asked `host` (its port, if given, is ignored) for exactly
    /// `path_and_query`.
    pub fn request_count(&self, host: &str, path_and_query: &str) -> usize {
        self.shared.log.count(host, path_and_query)
    }

    /// The requests `host` (its port, if given, is ignored) received so far, in arrival
    /// order: which paths, how often, how far apart.
    pub fn requests_to(&self, host: &str) -> HostRequests {
        HostRequests::of(host, self.shared.log.snapshot())
    }

    /// Requests not kept because the log was full (0 unless a test made over `MAX_LOGGED_REQUESTS`).
    pub fn requests_dropped(&self) -> u64 {
        self.shared.log.dropped()
    }

    /// Publishes edition `edition` of `fresh.test/news.html` (it starts at 1): a new `ETag`
    /// and new text.
    pub fn set_fresh_edition(&self, edition: u32) {
        self.shared.fresh_edition.store(edition, Ordering::SeqCst);
    }

    /// The host names served, to build a resolve table (each to 127.0.0.1): [`HOSTS`], then
    /// the soak hosts.
    pub fn hosts(&self) -> Vec<String> {
        HOSTS
            .iter()
            .map(|h| h.to_string())
            .chain(self.shared.soak.host_names())
            .collect()
    }

    /// The soak hosts served.
    pub fn soak(&self) -> SoakWeb {
        self.shared.soak
    }
}

impl Drop for TestWeb {
    fn drop(&mut self) {
        self.stop.send_replace(true);
    }
}

impl Shared {
    /// Logs one request and answers it.
    async fn handle(&self, path: &str, query: &str, headers: &HeaderMap) -> Response {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let host = host_name(&header("host").unwrap_or_default());
        let path_and_query = if query.is_empty() {
            path.to_string()
        } else {
            format!("{path}?{query}")
        };
        let earlier_requests = self.log.count(&host, &path_and_query);
        let index = self.log.push(Request {
            host: host.clone(),
            path_and_query,
            user_agent: header("user-agent"),
            from: header("from"),
            referer: header("referer"),
            accept: header("accept"),
            accept_encoding: header("accept-encoding"),
            if_none_match: header("if-none-match"),
            if_modified_since: header("if-modified-since"),
            at: std::time::Instant::now(),
            answered_at: None,
        });
        let response = match host.as_str() {
            "sample.test" => sample::respond(&self.site, path).await,
            "ranked.test" => ranked::respond(path),
            "big.test" => big::respond(path),
            "norobots.test" => robots_hosts::norobots(path),
            "forbidden.test" => robots_hosts::forbidden(path),
            "flaky.test" => robots_hosts::flaky(path),
            "locked.test" => robots_hosts::locked(path),
            "moved.test" => robots_hosts::moved(path),
            "busy.test" => robots_hosts::busy(path, earlier_requests),
            "down.test" => robots_hosts::down(path),
            "fresh.test" => fresh::respond(
                path,
                headers,
                self.fresh_edition.load(Ordering::SeqCst),
                earlier_requests,
            ),
            "maps.test" => sitemaps::respond(path, self.port),
            "charsets.test" => charsets::respond(path),
            "meta.test" => directives::respond(path),
            "copies.test" => copies::respond(path),
            "hostile.test" => hostile::respond(path),
            "redirect.test" => redirects::respond(path, self.port),
            "traps.test" => traps::respond(path, query, &self.stop).await,
            "stalls.test" => stalls::respond(path, &self.stop).await,
            "images.test" => images::respond(path, &self.stop).await,
            "pdfs.test" => pdfs::respond(path, query),
            "scripts.test" => scripts::respond(path),
            "router.test" => router::respond(path),
            "languages.test" => languages::respond(path),
            "dates.test" => dated::respond(path),
            "almanac.test" => dated::respond_archive(path),
            _ => match self.soak.host_number(&host) {
                Some(n) => {
                    self.soak
                        .respond(n, path, earlier_requests, self.port)
                        .await
                }
                None => reply::text(
                    404,
                    format!("404 Not Found: the test web has no host {host:?}\n"),
                ),
            },
        };
        if let Some(index) = index {
            self.log.answered(index, std::time::Instant::now());
        }
        response
    }
}

#[cfg(test)]
mod tests;
