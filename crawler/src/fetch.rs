//! HTTP for a robot: the client, the headers a polite robot sends, bounded bodies and
//! charset decoding.
//!
//! Redirects are not followed here: each 3xx comes back as an answer and the crawler queues
//! its target as a URL of its own, so every hop passes robots.txt, the scope, the seen-set
//! and politeness like any other URL.

mod deadlines;

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};
use shared::config::CrawlerConfig;
use shared::{CanonicalUrl, ContentKind, KindSet};
use tokio::time::{Instant, timeout_at};

use crate::kind::{Body, Kinds, ReadPlan};
use crate::metrics::CrawlMetrics;
use crate::politeness::{SendGate, SharedTurns, Spacing};
use crate::resolve::{AddressPolicy, Dns, PolicyResolver};

pub(crate) use deadlines::{Cutoff, Deadlines, RateMeter};

/// The most headers of an answer kept.
pub(crate) const MAX_HEADERS: usize = 200;

/// A header as the store keeps it: the name as given (lowercase from the HTTP client), the
/// value read as UTF-8 (lossily) and cut to 8192 characters.
pub(crate) fn stored_header(name: &str, value: &[u8]) -> (String, String) {
    let value = String::from_utf8_lossy(value);
    (name.to_string(), value.chars().take(8192).collect())
}

/// Why a fetch produced no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FetchError {
    /// The address is refused by the [`AddressPolicy`].
    #[error("address refused: {0}")]
    AddressRefused(String),
    /// A deadline passed before the answer was whole: which one, and after how long.
    #[error("{0}")]
    Cut(Cutoff),
    /// Connection refused, reset, DNS failure ...
    #[error("connection failed: {0}")]
    Connect(String),
    /// The answer broke off while the body was read.
    #[error("body read failed: {0}")]
    Body(String),
}

impl FetchError {
    /// A short name of the kind of failure, for counters.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            FetchError::AddressRefused(_) => "address_refused",
            FetchError::Cut(cutoff) => cutoff.kind(),
            FetchError::Connect(_) => "connect",
            FetchError::Body(_) => "body",
        }
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub(crate) struct Fetched {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body decoded to UTF-8, for [`BodyKind::Robots`] only.
    pub text: Option<String>,
    /// The body as it came (after `Content-Encoding`), for [`BodyKind::Sitemap`],
    /// [`BodyKind::Subresource`] and [`BodyKind::Content`].
    pub raw: Vec<u8>,
    /// For [`BodyKind::Content`]: the kind its body was found to be, when it is one that is
    /// read (see [`crate::kind`]); `None`: no body kept.
    pub kind: Option<ContentKind>,
    /// The `Content-Type` header, lowercase (empty when there is none).
    pub content_type: String,
    /// Body bytes read (before decoding).
    pub body_len: u64,
    /// The body was cut at the size limit.
    pub truncated: bool,
}

impl Fetched {
    /// A header's value, by lowercase name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What kind of body to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// A page, an image, a PDF: a body of one of these kinds is read, told by its bytes
    /// (see [`crate::kind`]).
    Content(KindSet),
    /// robots.txt: read any text, up to `limit` bytes (the parser reads no more).
    Robots {
        /// Most bytes read.
        limit: usize,
    },
    /// A sitemap: any media type (XML, gzip, text), kept as bytes up to `limit`.
    Sitemap {
        /// Most bytes read.
        limit: usize,
    },
    /// What a rendered page asks for (a script, a style sheet, data): any media type, kept
    /// as bytes up to `limit` (see [`crate::render`]).
    Subresource {
        /// Most bytes read.
        limit: usize,
    },
}

/// The validators of a stored copy, sent on a revisit: a `304 Not Modified` answer means the
/// copy stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Validators {
    /// Sent as `If-None-Match`.
    pub etag: Option<String>,
    /// Sent as `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// The crawler's HTTP client.
#[derive(Clone)]
pub(crate) struct Fetcher {
    client: reqwest::Client,
    dns: Dns,
    policy: AddressPolicy,
    kinds: Kinds,
    deadlines: Deadlines,
    gate: SendGate,
    /// Across workers of a distributed crawl: every address's turn booked where all of
    /// them see it.
    shared_turns: Option<Arc<dyn SharedTurns>>,
    /// Where the waits for a turn are counted.
    metrics: CrawlMetrics,
}

impl Fetcher {
    /// A client configured from the crawler config, reading bodies with `kinds` (see
    /// [`crate::kind`]).
    pub(crate) fn new(config: &CrawlerConfig, kinds: Kinds) -> Result<Self, reqwest::Error> {
        // reqwest is built without a bundled TLS crypto provider; ring is ours. Installing
        // twice (a second crawl in one process) is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let policy = if config.allow_loopback {
            AddressPolicy::AllowLoopback
        } else {
            AddressPolicy::PublicOnly
        };
        let dns = Dns::new(policy, config.resolve.clone());
        let mut headers = HeaderMap::new();
        if let Some(from) = &config.from
            && let Ok(value) = HeaderValue::from_str(from)
        {
            headers.insert(header::FROM, value);
        }
        let client = reqwest::Client::builder()
            .user_agent(user_agent(config))
            .default_headers(headers)
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .no_proxy()
            .connect_timeout(config.connect_timeout)
            .pool_idle_timeout(Duration::from_secs(30))
            .dns_resolver(PolicyResolver(dns.clone()))
            .build()?;
        Ok(Self {
            client,
            dns,
            policy,
            kinds,
            deadlines: Deadlines::new(config),
            gate: SendGate::new(),
            shared_turns: None,
            metrics: CrawlMetrics::default(),
        })
    }

    /// The same client, counting its waits for a turn in `metrics`.
    pub(crate) fn with_metrics(mut self, metrics: CrawlMetrics) -> Self {
        self.metrics = metrics;
        self
    }

    /// The same client, keeping every address's gap also across crawlers through `turns`.
    pub(crate) fn with_shared_turns(mut self, turns: Arc<dyn SharedTurns>) -> Self {
        self.shared_turns = Some(turns);
        self
    }

    /// The readers of every kind of content.
    pub(crate) fn kinds(&self) -> &Kinds {
        &self.kinds
    }

    /// The resolver every connection goes through (its cache is shared).
    pub(crate) fn dns(&self) -> &Dns {
        &self.dns
    }

    /// Waits until `spacing` is kept since the last request sent to `origin` and to its
    /// address by any clone of this fetcher (see [`crate::politeness::SendGate`]). Call it
    /// right before [`Fetcher::fetch`] of `url`. Each request let go is a debug event of the target
    /// `crawler::sent`, with the wall-clock time in µs (`at_us`) and, across workers, the
    /// address's turn on Redis's clock (`turn_us`): the soak compares these send times with
    /// the arrivals its test web logs, the cluster test the turns of all its workers.
    pub(crate) async fn wait_turn(&self, origin: &str, spacing: &Spacing, url: &CanonicalUrl) {
        let asked = tokio::time::Instant::now();
        // Across workers, Redis books the address's turn first; then this worker's own gate
        // keeps the gaps between the requests it actually sends, whatever the delay of
        // Redis's answer.
        let turn_us = match (&self.shared_turns, spacing.address) {
            (Some(turns), Some((address, gap))) => Some(turns.book(address, gap).await),
            _ => None,
        };
        self.gate.wait_turn(origin, spacing).await;
        self.metrics.waited(asked.elapsed());
        tracing::debug!(
            target: "crawler::sent",
            url = url.as_str(),
            turn_us,
            at_us = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros()),
            "sent"
        );
    }

    /// Fetches one URL. `referrer` goes into `Referer`; `validators` make the request
    /// conditional.
    pub(crate) async fn fetch(
        &self,
        url: &CanonicalUrl,
        referrer: Option<&str>,
        kind: BodyKind,
        validators: Option<&Validators>,
    ) -> Result<Fetched, FetchError> {
        // IP literals never reach the resolver: check them here.
        if let Some(host) = url.as_url().host()
            && let Some(ip) = match host {
                url::Host::Ipv4(v4) => Some(std::net::IpAddr::V4(v4)),
                url::Host::Ipv6(v6) => Some(std::net::IpAddr::V6(v6)),
                url::Host::Domain(_) => None,
            }
        {
            self.policy
                .check(ip)
                .map_err(|why| FetchError::AddressRefused(format!("{ip}: {why}")))?;
        }
        let accept = match kind {
            BodyKind::Content(kinds) => self.kinds.accept(kinds),
            BodyKind::Robots { .. } => HeaderValue::from_static("text/plain,*/*;q=0.1"),
            BodyKind::Sitemap { .. } => HeaderValue::from_static(
                "application/xml,text/xml;q=0.9,text/plain;q=0.5,*/*;q=0.1",
            ),
            BodyKind::Subresource { .. } => HeaderValue::from_static("*/*"),
        };
        let mut request = self.client.get(url.as_str()).header(header::ACCEPT, accept);
        if let Some(referrer) = referrer {
            request = request.header(header::REFERER, referrer);
        }
        if let Some(validators) = validators {
            if let Some(etag) = &validators.etag {
                request = request.header(header::IF_NONE_MATCH, etag);
            }
            if let Some(date) = &validators.last_modified {
                request = request.header(header::IF_MODIFIED_SINCE, date);
            }
        }
        let deadlines = self.deadlines;
        let sent = Instant::now();
        let (headers_due, late_headers) = deadlines.headers_due(sent);
        let mut response = timeout_at(headers_due, request.send())
            .await
            .map_err(|_| FetchError::Cut(late_headers))?
            .map_err(|error| classify(error, &deadlines))?;
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .take(MAX_HEADERS)
            .map(|(name, value)| stored_header(name.as_str(), value.as_bytes()))
            .collect();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let hint = self.kinds.hint(&content_type);
        let plan = match kind {
            BodyKind::Content(kinds) => self.kinds.plan(hint, kinds),
            BodyKind::Robots { limit }
            | BodyKind::Sitemap { limit }
            | BodyKind::Subresource { limit } => ReadPlan::Read(limit),
        };
        let limit = match plan {
            ReadPlan::Read(limit) if !(300..400).contains(&status) => limit,
            ReadPlan::Read(_) | ReadPlan::Skip => {
                return Ok(Fetched {
                    status,
                    headers,
                    text: None,
                    raw: Vec::new(),
                    kind: None,
                    content_type,
                    body_len: 0,
                    truncated: false,
                });
            }
        };
        let mut body = Vec::new();
        let mut truncated = false;
        let request_due = sent + deadlines.request;
        let mut meter = RateMeter::new(deadlines.min_rate, Instant::now());
        loop {
            // Wake at the request deadline, or earlier when a transfer window ends.
            let wake = meter
                .window_end()
                .map_or(request_due, |end| end.min(request_due));
            if let Ok(read) = timeout_at(wake, response.chunk()).await {
                let Some(chunk) = read.map_err(classify_body)? else {
                    break;
                };
                meter.add(chunk.len());
                let room = limit - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            let now = Instant::now();
            if now >= request_due {
                return Err(FetchError::Cut(Cutoff::Request(deadlines.request)));
            }
            meter.check(now).map_err(FetchError::Cut)?;
        }
        let body_len = body.len() as u64;
        let (text, raw, kind) = match kind {
            BodyKind::Robots { .. } => (
                Some(crate::charset::decode(&body, &content_type)),
                Vec::new(),
                None,
            ),
            BodyKind::Sitemap { .. } | BodyKind::Subresource { .. } => (None, body, None),
            BodyKind::Content(kinds) => {
                let mut read = Body {
                    bytes: body,
                    content_type: content_type.clone(),
                    truncated,
                };
                let kind = self.kinds.settle(hint, kinds, &mut read);
                truncated = read.truncated;
                match kind {
                    Some(kind) => (None, read.bytes, Some(kind)),
                    None => (None, Vec::new(), None),
                }
            }
        };
        Ok(Fetched {
            status,
            headers,
            text,
            raw,
            kind,
            content_type,
            body_len,
            truncated,
        })
    }
}

/// `<token>/<version> (+<info url>)`.
pub(crate) fn user_agent(config: &CrawlerConfig) -> String {
    format!(
        "{}/{} (+{})",
        config.agent,
        shared::VERSION,
        config.info_url
    )
}

/// `12 B`, `1 KiB`, `10 MiB`, `1.5 MiB`: a byte count as people read it.
pub(crate) fn byte_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn classify(error: reqwest::Error, deadlines: &Deadlines) -> FetchError {
    if error.is_timeout() {
        // The only timeout the client itself keeps is the connector's.
        return FetchError::Cut(Cutoff::Connect(deadlines.connect));
    }
    // The resolver's refusal arrives as the source of a connect error.
    let mut chain = String::new();
    let mut source: Option<&dyn std::error::Error> = Some(&error);
    while let Some(err) = source {
        chain.push_str(&err.to_string());
        chain.push_str(": ");
        source = err.source();
    }
    let chain = chain.trim_end_matches(": ").to_string();
    if chain.contains("address refused") || chain.contains("refused (use --allow-loopback)") {
        FetchError::AddressRefused(chain)
    } else {
        FetchError::Connect(chain)
    }
}

fn classify_body(error: reqwest::Error) -> FetchError {
    FetchError::Body(error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes_read_as_people_write_them() {
        for (bytes, said) in [
            (12, "12 B"),
            (1024, "1 KiB"),
            (10 * 1024 * 1024, "10 MiB"),
            (1536 * 1024, "1.5 MiB"),
        ] {
            assert_eq!(byte_size(bytes), said);
        }
    }

    #[test]
    fn user_agent_names_the_bot() {
        let config = shared::config::RawCrawlerConfig::default();
        let ua = user_agent(&config.validate().unwrap());
        assert!(
            ua.starts_with(&format!("siftbot/{} (+http", shared::VERSION)),
            "{ua}"
        );
    }
}
