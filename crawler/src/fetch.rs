//! HTTP for a robot: the client, the headers a polite robot sends, bounded bodies and
//! charset decoding.
//!
//! Redirects are not followed here: each 3xx comes back as an answer and the crawler queues
//! its target as a URL of its own, so every hop passes robots.txt, the scope, the seen-set
//! and politeness like any other URL.

use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};
use shared::CanonicalUrl;
use shared::config::CrawlerConfig;

use crate::resolve::{AddressPolicy, Dns, PolicyResolver};

/// What the crawler asks for in `Accept`.
const ACCEPT: &str = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5,*/*;q=0.1";

/// Why a fetch produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The address is refused by the [`AddressPolicy`].
    #[error("address refused: {0}")]
    AddressRefused(String),
    /// No answer within the timeout.
    #[error("timed out")]
    Timeout,
    /// Connection refused, reset, DNS failure ...
    #[error("connection failed: {0}")]
    Connect(String),
    /// The answer broke off while the body was read.
    #[error("body read failed: {0}")]
    Body(String),
}

impl FetchError {
    /// A short name of the kind of failure, for counters.
    pub fn kind(&self) -> &'static str {
        match self {
            FetchError::AddressRefused(_) => "address_refused",
            FetchError::Timeout => "timeout",
            FetchError::Connect(_) => "connect",
            FetchError::Body(_) => "body",
        }
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Fetched {
    /// Status code.
    pub status: u16,
    /// Headers, names lowercase.
    pub headers: Vec<(String, String)>,
    /// The body decoded to UTF-8, for text answers; `None` for other media types.
    pub text: Option<String>,
    /// The body as it came (after `Content-Encoding`), for [`BodyKind::Sitemap`] only.
    pub raw: Vec<u8>,
    /// Body bytes read (before decoding).
    pub body_len: u64,
    /// The body was cut at the size limit.
    pub truncated: bool,
}

impl Fetched {
    /// A header's value, by lowercase name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What kind of body to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A page: read HTML and XHTML (and answers without a media type).
    Page,
    /// robots.txt: read any text.
    Robots,
    /// A sitemap: any media type (XML, gzip, text), kept as bytes up to `limit`.
    Sitemap {
        /// Most bytes read.
        limit: usize,
    },
}

/// The validators of a stored copy, sent on a revisit: a `304 Not Modified` answer means the
/// copy stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Validators {
    /// Sent as `If-None-Match`.
    pub etag: Option<String>,
    /// Sent as `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// The crawler's HTTP client.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    dns: Dns,
    policy: AddressPolicy,
    max_body_bytes: usize,
}

impl Fetcher {
    /// A client configured from the crawler config.
    pub fn new(config: &CrawlerConfig) -> Result<Self, reqwest::Error> {
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
        headers.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT));
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
            .timeout(config.request_timeout)
            .pool_idle_timeout(Duration::from_secs(30))
            .dns_resolver(PolicyResolver(dns.clone()))
            .build()?;
        Ok(Self {
            client,
            dns,
            policy,
            max_body_bytes: config.max_body_bytes,
        })
    }

    /// The resolver every connection goes through (its cache is shared).
    pub fn dns(&self) -> &Dns {
        &self.dns
    }

    /// Fetches one URL. `referrer` goes into `Referer`; `validators` make the request
    /// conditional.
    pub async fn fetch(
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
        let mut request = self.client.get(url.as_str());
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
        let mut response = request.send().await.map_err(classify)?;
        let status = response.status().as_u16();
        let headers: Vec<(String, String)> = response
            .headers()
            .iter()
            .take(200)
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes());
                (
                    name.as_str().to_string(),
                    value.chars().take(8192).collect(),
                )
            })
            .collect();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let wanted = match kind {
            BodyKind::Page => {
                content_type.is_empty()
                    || content_type.starts_with("text/html")
                    || content_type.starts_with("application/xhtml+xml")
            }
            BodyKind::Robots | BodyKind::Sitemap { .. } => true,
        };
        if !wanted || (300..400).contains(&status) {
            return Ok(Fetched {
                status,
                headers,
                text: None,
                raw: Vec::new(),
                body_len: 0,
                truncated: false,
            });
        }
        let limit = match kind {
            BodyKind::Page => self.max_body_bytes,
            BodyKind::Robots => crate::robots::MAX_ROBOTS_BYTES,
            BodyKind::Sitemap { limit } => limit,
        };
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(classify_body)? {
            let room = limit - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        let body_len = body.len() as u64;
        if let BodyKind::Sitemap { .. } = kind {
            return Ok(Fetched {
                status,
                headers,
                text: None,
                raw: body,
                body_len,
                truncated,
            });
        }
        let text = crate::charset::decode(&body, &content_type);
        Ok(Fetched {
            status,
            headers,
            text: Some(text),
            raw: Vec::new(),
            body_len,
            truncated,
        })
    }
}

/// `<token>/<version> (+<info url>)`.
pub fn user_agent(config: &CrawlerConfig) -> String {
    format!(
        "{}/{} (+{})",
        config.agent,
        shared::VERSION,
        config.info_url
    )
}

fn classify(error: reqwest::Error) -> FetchError {
    if error.is_timeout() {
        return FetchError::Timeout;
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
    if error.is_timeout() {
        FetchError::Timeout
    } else {
        FetchError::Body(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
