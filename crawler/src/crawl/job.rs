//! One job of a fetch task, off the scheduler: the request (a page, a revisit with
//! validators, a sitemap) and the parsing of its body on the blocking pool.

use std::net::IpAddr;
use std::time::Duration;

use shared::record::{EntryKind, FrontierEntry};
use shared::{CanonicalUrl, ContentKind, KindSet, now_ms};
use tokio::time::Instant;

use super::Crawler;
use super::rendering::{self, RenderTools, Rendering, StaticPage};
use crate::error::Error;
use crate::fetch::{BodyKind, FetchError, Fetched, Fetcher, Validators};
use crate::frontier::Job;
use crate::kind::{Body, Findings, ReadContext};
use crate::render::{OriginRules, Renderer};
use crate::robots_fetch::{RobotsResult, fetch_robots};
use crate::sitemap::{self, Sitemap, SitemapAnswer, SitemapError, SitemapLimits};

/// What a fetch task hands back.
#[allow(clippy::large_enum_variant, reason = "one value per fetch, moved once")]
pub(super) enum Outcome {
    Resolved {
        origin: String,
        /// The first allowed address, or why there is none.
        result: Result<IpAddr, String>,
    },
    Robots {
        origin: String,
        result: RobotsResult,
    },
    Page {
        origin: String,
        key: Vec<u8>,
        entry: FrontierEntry,
        url: CanonicalUrl,
        fetched_at_ms: u64,
        /// How long the answer took to arrive (to the end of its body).
        elapsed: Duration,
        result: PageResult,
        /// The page's render, when its host's pages are rendered.
        rendering: Option<Rendering>,
    },
}

/// What was read out of an answer's body, off the async threads.
#[allow(clippy::large_enum_variant, reason = "one value per fetch, moved once")]
pub(super) enum Parsed {
    /// Nothing (not a 2xx, no kind that is read, or a parse that could not run).
    Nothing,
    /// A body of a kind that is read: a page, an image, a PDF.
    Content(Findings),
    /// A sitemap.
    Sitemap(Result<Sitemap, SitemapError>),
}

pub(super) type PageResult = Result<(Fetched, Parsed), FetchError>;

/// A sitemap job's result in the words of [`crate::sitemap`]: read (a 2xx), moved (a 3xx
/// and its target), not read, or not fetched.
pub(super) fn sitemap_answer(url: &CanonicalUrl, result: PageResult) -> SitemapAnswer {
    match result {
        Ok((fetched, Parsed::Sitemap(parsed))) if (200..300).contains(&fetched.status) => {
            SitemapAnswer::Read(parsed)
        }
        Ok((fetched, _)) if (300..400).contains(&fetched.status) => SitemapAnswer::Moved(
            fetched
                .header("location")
                .and_then(|location| CanonicalUrl::join(url.as_url(), location).ok()),
        ),
        Ok((fetched, _)) => SitemapAnswer::NotRead(fetched.status),
        Err(error) => SitemapAnswer::Failed(error),
    }
}

/// How a job's URL is fetched.
pub(super) struct FetchPlan {
    body: BodyKind,
    validators: Option<Validators>,
    sitemap_limits: SitemapLimits,
}

impl Crawler {
    /// How to fetch a frontier entry: a page (of any kind read from its host), a revisit
    /// with the stored copy's validators, a sitemap, or an image.
    pub(super) fn fetch_plan(
        &self,
        entry: &FrontierEntry,
        url: &CanonicalUrl,
    ) -> Result<FetchPlan, Error> {
        let config = &self.options.config;
        let kinds = config.kinds_for(url.as_url().host_str().unwrap_or_default());
        let sitemap_limits = SitemapLimits {
            max_bytes: config.max_sitemap_bytes as u64,
            max_urls: config.max_sitemap_urls,
        };
        let (body, validators) = match entry.kind {
            EntryKind::Page => (BodyKind::Content(kinds), None),
            EntryKind::Revisit => {
                let validators = self.store.revisit(&entry.url)?.map(|r| Validators {
                    etag: r.etag,
                    last_modified: r.last_modified,
                });
                (BodyKind::Content(kinds), validators)
            }
            EntryKind::Sitemap => {
                let limit = config.max_sitemap_bytes;
                (BodyKind::Sitemap { limit }, None)
            }
            EntryKind::Image => {
                let images = KindSet::of(&[ContentKind::Image]);
                let kinds = if kinds.contains(ContentKind::Image) {
                    images
                } else {
                    KindSet::NONE
                };
                (BodyKind::Content(kinds), None)
            }
        };
        Ok(FetchPlan {
            body,
            validators,
            sitemap_limits,
        })
    }
}

/// Runs one job: the network part, then parsing off the async threads.
pub(super) async fn perform(
    job: Job,
    plan: Option<FetchPlan>,
    fetcher: Fetcher,
    render: Option<RenderTools>,
    agent: String,
) -> Outcome {
    match job {
        Job::Resolve { origin, host } => {
            let result = fetcher
                .dns()
                .lookup(&host)
                .await
                .and_then(|ips| ips.first().copied().ok_or_else(|| "no address".into()));
            Outcome::Resolved { origin, result }
        }
        Job::Robots { origin, spacing } => {
            let result = fetch_robots(&fetcher, &origin, &spacing).await;
            Outcome::Robots { origin, result }
        }
        Job::Page {
            origin,
            key,
            entry,
            url,
            spacing,
            robots,
        } => {
            let plan = plan.unwrap_or(FetchPlan {
                body: BodyKind::Content(KindSet::of(&[ContentKind::Html])),
                validators: None,
                sitemap_limits: SitemapLimits::default(),
            });
            fetcher.wait_turn(&origin, &spacing, &url).await;
            let started = Instant::now();
            let result = fetcher
                .fetch(
                    &url,
                    entry.referrer.as_deref(),
                    plan.body,
                    plan.validators.as_ref(),
                )
                .await;
            let fetched_at_ms = now_ms();
            let elapsed = started.elapsed();
            let mut rendering = None;
            let result = match result {
                Ok(fetched) => {
                    let to_render = render
                        .as_ref()
                        .filter(|tools| is_rendered(&tools.renderer, &fetched, &url))
                        .map(|_| StaticPage {
                            headers: fetched.headers.clone(),
                            body: fetched.raw.clone(),
                        });
                    let (fetched, mut parsed) =
                        parse(fetched, &fetcher, &url, agent.clone(), plan.sitemap_limits).await;
                    if let (Some(page), Some(tools), Parsed::Content(findings)) =
                        (to_render, render.as_ref(), &mut parsed)
                    {
                        let own = OriginRules { robots, spacing };
                        rendering = Some(
                            rendering::render(tools, &fetcher, &url, own, page, findings, &agent)
                                .await,
                        );
                    }
                    Ok((fetched, parsed))
                }
                Err(e) => Err(e),
            };
            Outcome::Page {
                origin,
                key,
                entry,
                url,
                fetched_at_ms,
                elapsed,
                result,
                rendering,
            }
        }
    }
}

/// Whether a fetched answer is rendered: a 2xx HTML page of a host whose pages are.
fn is_rendered(renderer: &Renderer, fetched: &Fetched, url: &CanonicalUrl) -> bool {
    (200..300).contains(&fetched.status)
        && fetched.kind == Some(ContentKind::Html)
        && renderer.wants(url.host())
}

/// Reads a 2xx body off the async threads: a page, an image or a PDF by its kind's reader
/// (see [`crate::kind`]), a sitemap for URLs.
async fn parse(
    mut fetched: Fetched,
    fetcher: &Fetcher,
    url: &CanonicalUrl,
    agent: String,
    limits: SitemapLimits,
) -> (Fetched, Parsed) {
    if !(200..300).contains(&fetched.status) {
        return (fetched, Parsed::Nothing);
    }
    if let Some(reader) = fetched.kind.and_then(|kind| fetcher.kinds().reader(kind)) {
        let body = Body {
            bytes: std::mem::take(&mut fetched.raw),
            content_type: fetched.content_type.clone(),
            truncated: fetched.truncated,
        };
        let context = ReadContext {
            url: url.clone(),
            agent,
        };
        let reading = reader.read(body, context).await;
        return (fetched, Parsed::Content(reading));
    }
    if fetched.raw.is_empty() {
        return (fetched, Parsed::Nothing);
    }
    let raw = std::mem::take(&mut fetched.raw);
    match tokio::task::spawn_blocking(move || sitemap::parse(&raw, &limits)).await {
        Ok(parsed) => (fetched, Parsed::Sitemap(parsed)),
        Err(_) => (fetched, Parsed::Nothing),
    }
}
