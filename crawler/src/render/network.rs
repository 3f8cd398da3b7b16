//! The rendered page's network: every request the page makes is decided and answered here,
//! by the crawler's own fetcher, so each obeys what the crawl's own requests obey.
//!
//! In order, a request is refused when:
//! 1. it is not `GET` (a robot changes nothing on a site) or not http(s);
//! 2. its type is not one the crawl fetches (`render_fetch`: images, fonts and media are
//!    left out unless listed; pings, prefetches and reports always are);
//! 3. the page has made `render_max_requests` requests already;
//! 4. its origin's robots.txt disallows it (an origin other than the page's has its
//!    robots.txt fetched first, once per run; one that cannot be read refuses everything).
//!
//! Otherwise a script or style sheet kept from an earlier page answers it
//! ([`super::cache`]); else the fetcher sends it once the origin's delay has passed since the
//! last request sent there (the page's own request and its other subresources included), and
//! the gap of the address the origin resolves to since the last request sent to that address
//! (for every origin, the page's own and others, when per-address limits apply),
//! through the address policy and within `max_body_bytes` (a longer body is refused, not
//! cut). A page's requests are answered one at a time, so a render holds one request to its
//! host at a time, as the page's fetch slot does.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use shared::CanonicalUrl;
use shared::config::{CrawlerConfig, Resource, ResourceSet};
use tokio::sync::Mutex;

use super::cache::SubresourceCache;
pub(crate) use super::reply::Reply;
use crate::fetch::{BodyKind, Fetcher};
use crate::politeness::Politeness;
use crate::politeness::Spacing;
use crate::robots_fetch::{RobotsResult, fetch_robots};
use robots::RobotsPolicy;

/// Origins whose rules are kept at most; past it the map starts again.
const MAX_ORIGINS: usize = 4096;

/// Why a request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not `GET`.
    Method(String),
    /// Not an http(s) URL the crawler reads.
    Scheme,
    /// A type the crawl does not fetch.
    Type(String),
    /// The page made its most requests already.
    Cap,
    /// robots.txt disallows it, or the origin's robots.txt could not be read.
    Robots,
    /// The fetch failed (address refused, timeout, connection).
    Failed(String),
    /// The body is longer than `max_body_bytes`.
    TooLarge,
}

impl Refusal {
    /// The `Network.ErrorReason` the browser is told.
    pub(crate) fn error_reason(&self) -> &'static str {
        match self {
            Refusal::Failed(_) | Refusal::TooLarge => "Failed",
            _ => "BlockedByClient",
        }
    }
}

/// How a request was answered.
pub(crate) enum Answer {
    /// With this reply (fetched, or kept from an earlier page).
    Reply(Arc<Reply>),
    /// Refused.
    Refused(Refusal),
}

/// A request a render sent to a site, for the host's statistics.
#[derive(Clone, Debug)]
pub(crate) struct SentRequest {
    /// Its origin.
    pub origin: String,
    /// The status, or `None` when it failed.
    pub status: Option<u16>,
}

/// The rules one origin's requests keep.
#[derive(Clone)]
pub(crate) struct OriginRules {
    /// Its robots.txt.
    pub robots: Arc<RobotsPolicy>,
    /// The gaps its requests keep.
    pub spacing: Spacing,
}

/// What every render shares: the cache, other origins' rules, the settings.
#[derive(Clone)]
pub(crate) struct Network {
    cache: SubresourceCache,
    origins: Arc<Mutex<HashMap<String, OriginRules>>>,
    politeness: Politeness,
    agent: String,
    body_limit: usize,
    fetch_types: ResourceSet,
}

impl Network {
    /// From the crawl's settings.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            cache: SubresourceCache::default(),
            origins: Arc::default(),
            politeness: Politeness::new(config),
            agent: config.agent.clone(),
            body_limit: config.max_body_bytes,
            fetch_types: config.rendering.fetch,
        }
    }

    /// One page's network: `own` are the rules of the page's origin, as its fetch kept them.
    pub(crate) fn for_page(
        &self,
        fetcher: Fetcher,
        page: &CanonicalUrl,
        own: OriginRules,
        max_requests: u32,
    ) -> PageNetwork {
        PageNetwork {
            network: self.clone(),
            fetcher,
            page_url: page.as_str().to_string(),
            page_origin: page.origin(),
            own,
            max_requests,
            requests: 0,
            refused: 0,
            sent: Vec::new(),
        }
    }

    /// The rules of an origin other than the page's: its robots.txt fetched once per run.
    async fn rules_for(&self, fetcher: &Fetcher, origin: &str) -> OriginRules {
        let mut origins = self.origins.lock().await;
        if let Some(rules) = origins.get(origin) {
            return rules.clone();
        }
        let address = self.address_of(fetcher, origin).await;
        let gap = |origin_gap: Duration| Spacing {
            origin_gap,
            address: address.map(|(ip, delay)| (ip, delay.min(origin_gap))),
        };
        let first = gap(self.politeness.delay_for(origin, None));
        let robots = match fetch_robots(fetcher, origin, &first).await {
            RobotsResult::Answer(record) => RobotsPolicy::from_fetch(&record.fetch, &self.agent),
            RobotsResult::Unavailable { .. } | RobotsResult::Refused(_) => {
                crate::robots_fetch::policy_of_body(b"User-agent: *\nDisallow: /\n", &self.agent)
            }
        };
        let rules = OriginRules {
            spacing: gap(self.politeness.delay_for(origin, robots.crawl_delay())),
            robots: Arc::new(robots),
        };
        if origins.len() >= MAX_ORIGINS {
            origins.clear();
        }
        origins.insert(origin.to_string(), rules.clone());
        rules
    }
}

impl Network {
    /// The address `origin` is reached at and its gap, when per-address limits apply: a
    /// subresource on another origin waits for that address's gap as a page there would (a
    /// host its pages share an address with is not asked faster through a render). `None`
    /// also when the name does not resolve: the fetch then fails as it would.
    async fn address_of(&self, fetcher: &Fetcher, origin: &str) -> Option<(IpAddr, Duration)> {
        let limits = self.politeness.ip_limits()?;
        let host = url::Url::parse(origin).ok()?.host_str()?.to_string();
        let ip = *fetcher.dns().lookup(&host).await.ok()?.first()?;
        Some((ip, limits.delay))
    }
}

/// One page's requests: its counts and the requests it sent.
pub(crate) struct PageNetwork {
    network: Network,
    fetcher: Fetcher,
    page_url: String,
    page_origin: String,
    own: OriginRules,
    max_requests: u32,
    /// Requests answered.
    pub requests: u32,
    /// Requests refused.
    pub refused: u32,
    /// Requests sent to sites.
    pub sent: Vec<SentRequest>,
}

impl PageNetwork {
    /// Decides and answers one request of the page.
    pub(crate) async fn answer(&mut self, method: &str, url: &str, resource_type: &str) -> Answer {
        let answer = self.decide(method, url, resource_type).await;
        match &answer {
            Answer::Reply(_) => self.requests += 1,
            Answer::Refused(refusal) => {
                self.refused += 1;
                tracing::debug!(page = %self.page_url, %url, resource_type, ?refusal, "render: request refused");
            }
        }
        answer
    }

    async fn decide(&mut self, method: &str, url: &str, resource_type: &str) -> Answer {
        if method != "GET" {
            return Answer::Refused(Refusal::Method(method.to_string()));
        }
        let Ok(canonical) = CanonicalUrl::parse(url) else {
            return Answer::Refused(Refusal::Scheme);
        };
        let resource = Resource::from_devtools(resource_type);
        if !resource.is_some_and(|r| self.network.fetch_types.contains(r)) {
            return Answer::Refused(Refusal::Type(resource_type.to_ascii_lowercase()));
        }
        if self.requests >= self.max_requests {
            return Answer::Refused(Refusal::Cap);
        }
        let origin = canonical.origin();
        let rules = if origin == self.page_origin {
            self.own.clone()
        } else {
            self.network.rules_for(&self.fetcher, &origin).await
        };
        if !rules.robots.allows(canonical.path_and_query()) {
            return Answer::Refused(Refusal::Robots);
        }
        let cacheable = matches!(resource, Some(Resource::Script | Resource::Stylesheet));
        if cacheable && let Some(reply) = self.network.cache.get(canonical.as_str()) {
            return Answer::Reply(reply);
        }
        self.fetcher
            .wait_turn(&origin, &rules.spacing, &canonical)
            .await;
        let limit = self.network.body_limit;
        let result = self
            .fetcher
            .fetch(
                &canonical,
                Some(&self.page_url),
                BodyKind::Subresource { limit },
                None,
            )
            .await;
        let fetched = match result {
            Ok(fetched) => fetched,
            Err(error) => {
                self.sent.push(SentRequest {
                    origin,
                    status: None,
                });
                return Answer::Refused(Refusal::Failed(error.to_string()));
            }
        };
        self.sent.push(SentRequest {
            origin,
            status: Some(fetched.status),
        });
        if fetched.truncated {
            return Answer::Refused(Refusal::TooLarge);
        }
        let mut reply = Reply {
            status: fetched.status,
            headers: fetched
                .headers
                .into_iter()
                .filter(|(name, _)| !is_transfer_header(name))
                .collect(),
            body: fetched.raw,
        };
        if cacheable && SubresourceCache::may_keep(&reply) {
            reply.keep_for_the_run();
            let reply = Arc::new(reply);
            self.network
                .cache
                .put(canonical.as_str(), Arc::clone(&reply));
            return Answer::Reply(reply);
        }
        Answer::Reply(Arc::new(reply))
    }
}

/// Headers about how the body travelled: the browser gets it whole and decoded.
pub(crate) fn is_transfer_header(name: &str) -> bool {
    matches!(
        name,
        "content-encoding" | "content-length" | "transfer-encoding" | "connection" | "keep-alive"
    )
}
