//! What a fetch becomes in the store: the page record, its outlinks, and the URLs it adds
//! to the frontier.
//!
//! A page's links are followed only when it is a 2xx HTML page, not a copy of a page already
//! stored, and not `nofollow` (META or `X-Robots-Tag`); a redirect's target (3xx `Location`,
//! or `<meta http-equiv="refresh">`) is queued at the same depth with one hop more, up to
//! `max_redirects`, unless it is already in the chain that led here (a loop). A page's
//! `rel=canonical` URL (HTML, else `Link` header) is kept with `strip_params` applied, unless
//! it names the page itself.

use shared::config::CrawlerConfig;
use shared::dates::PageDates;
use shared::record::{
    CompressedBody, EntryKind, FetchEvent, FrontierEntry, ImageRef, MediaRecord, Outlink, Outlinks,
    PageImages, PageRecord, RobotsDirectives, Thumbnail,
};
use shared::{CanonicalUrl, ContentKind, StoreError};
use tracing::debug;

use crate::extract::{ShownImage, apply_robots_header, canonical_with_header};
use crate::fetch::{FetchError, Fetched};
use crate::kind::Findings;
use crate::params::ParamStrip;
use crate::scope::Scope;
use crate::store::KindCommit;

/// A fetch, ready to be written.
pub(crate) struct StoredPage {
    /// The record.
    pub record: PageRecord,
    /// Its links.
    pub outlinks: Outlinks,
    /// The targets of `outlinks`, parsed, in the same order.
    pub targets: Vec<CanonicalUrl>,
    /// Whether its links may be followed.
    pub follow: bool,
    /// The simhash of its main text (see [`shared::simhash`]), if it has one.
    pub simhash: Option<u64>,
    /// What its kind's reader found beyond the page record: an image's or a PDF's record, a
    /// thumbnail, the images a page shows.
    pub extra: KindRecords,
}

/// The records a kind adds to a page's batch (see [`crate::page::Reading`]).
#[derive(Debug, Default)]
pub(crate) struct KindRecords {
    /// For the `media` family.
    pub media: Option<MediaRecord>,
    /// For the `thumbs` family, under the image's content hash.
    pub thumbnail: Option<Thumbnail>,
    /// The images a page shows.
    pub images: Vec<ShownImage>,
}

impl KindRecords {
    /// What the page's write adds for its kind: these records, the thumbnail under its
    /// image's content hash, and `images`, the images recorded with the page
    /// ([`page_images`]).
    pub(crate) fn commit<'a>(&'a self, images: Option<&'a PageImages>) -> KindCommit<'a> {
        let thumbnail = match (&self.media, &self.thumbnail) {
            (Some(MediaRecord::Image(image)), Some(thumbnail)) => {
                Some((image.content_hash, thumbnail))
            }
            _ => None,
        };
        KindCommit {
            media: self.media.as_ref(),
            thumbnail,
            images,
        }
    }
}

/// What reading a page needs besides the page.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reading<'a> {
    /// Our robots token (for `X-Robots-Tag: agent: ...`).
    pub agent: &'a str,
    /// Query parameters removed from the URLs the page names (links, redirect targets).
    pub params: &'a ParamStrip,
}

/// The record of an answered fetch; `content_owner` finds a stored page (not this one) with
/// the same text hash, or a near simhash and a similar title.
pub(crate) fn answered(
    url: &CanonicalUrl,
    entry: &FrontierEntry,
    fetched: Fetched,
    read: Option<Findings>,
    fetched_at_ms: u64,
    reading: Reading<'_>,
    content_owner: impl FnOnce(u64, Option<(u64, &str)>) -> Result<Option<String>, StoreError>,
) -> Result<StoredPage, StoreError> {
    let Findings {
        mut extracted,
        body,
        media,
        thumbnail,
    } = read.unwrap_or_default();
    let images = std::mem::take(&mut extracted.images)
        .into_iter()
        .map(|image| ShownImage {
            target: reading.params.apply(image.target),
            ..image
        })
        .collect();
    let mut robots_header = RobotsDirectives::default();
    for (_, value) in fetched
        .headers
        .iter()
        .filter(|(name, _)| name == "x-robots-tag")
    {
        apply_robots_header(&mut robots_header, value, reading.agent);
    }
    let robots = extracted.robots.or(robots_header);
    let mut links = Vec::with_capacity(extracted.links.len());
    let mut targets = Vec::with_capacity(extracted.links.len());
    for link in extracted.links {
        let target = reading.params.apply(link.target);
        links.push(Outlink {
            target: target.as_str().to_string(),
            anchor: link.anchor,
            nofollow: link.nofollow || robots.nofollow,
        });
        targets.push(target);
    }
    let body = body.filter(|_| (200..300).contains(&fetched.status));
    let is_page = body.is_some();
    let duplicate_of = if is_page {
        let near = extracted.simhash.map(|h| (h, extracted.title.as_str()));
        content_owner(extracted.text_hash, near)?
    } else {
        None
    };
    let redirect_to = if (300..400).contains(&fetched.status) {
        fetched
            .header("location")
            .and_then(|location| CanonicalUrl::join(url.as_url(), location).ok())
            .map(|target| reading.params.apply(target).into())
    } else if is_page {
        extracted
            .refresh_to
            .map(|target| reading.params.apply_str(target))
    } else {
        None
    };
    let follow = is_page && duplicate_of.is_none() && !robots.nofollow;
    // Only a page has a canonical URL worth keeping; naming itself says nothing.
    let canonical = if is_page {
        canonical_with_header(extracted.canonical, &fetched.headers, url.as_url())
            .map(|target| reading.params.apply_str(target))
            .filter(|target| target != url.as_str())
    } else {
        None
    };
    // A page's dates (those it declares, its URL's, its Last-Modified); an answer that is no
    // page has none, read.
    let dates = if (200..300).contains(&fetched.status) {
        let last_modified = fetched
            .headers
            .iter()
            .find(|(name, _)| name == "last-modified")
            .map(|(_, value)| value.as_str());
        PageDates::decide(&extracted.dates, url.as_str(), last_modified, fetched_at_ms)
    } else {
        PageDates::default()
    };
    let record = PageRecord {
        url: url.as_str().to_string(),
        final_url: url.as_str().to_string(),
        status: fetched.status,
        error: None,
        truncated: fetched.truncated,
        headers: fetched.headers,
        body: body.unwrap_or_default(),
        body_len: if is_page { fetched.body_len } else { 0 },
        fetched_at_ms,
        content_hash: if is_page { extracted.text_hash } else { 0 },
        title: extracted.title,
        description: extracted.description,
        robots,
        depth: entry.depth,
        redirect_to,
        duplicate_of,
        keywords: extracted.keywords,
        revisit_after_secs: extracted.revisit_after_secs,
        aliases: aliases(entry),
        canonical,
        robots_header,
        change: 0,
        kind: fetched
            .kind
            .filter(|_| (200..300).contains(&fetched.status))
            .unwrap_or_default(),
        dates: Some(dates),
    };
    Ok(StoredPage {
        record,
        outlinks: Outlinks(links),
        targets,
        follow,
        simhash: extracted.simhash.filter(|_| is_page),
        extra: KindRecords {
            media,
            thumbnail,
            images,
        },
    })
}

/// How a failed fetch that will be tried again joins the URL's history: its status (0 for
/// no answer) and why.
pub(crate) fn failure_event(answer: Result<&Fetched, &FetchError>, at_ms: u64) -> FetchEvent {
    let (status, error) = match answer {
        Ok(fetched) => (fetched.status, None),
        Err(error) => (0, Some(describe(error))),
    };
    FetchEvent {
        at_ms,
        status,
        error,
        content_hash: 0,
    }
}

/// A fetch error as the store keeps it: `kind: what happened`.
fn describe(error: &FetchError) -> String {
    format!("{}: {error}", error.kind())
}

/// The record of a fetch that got no answer.
pub(crate) fn failed(
    url: &CanonicalUrl,
    entry: &FrontierEntry,
    error: &FetchError,
    fetched_at_ms: u64,
) -> StoredPage {
    let record = PageRecord {
        url: url.as_str().to_string(),
        final_url: url.as_str().to_string(),
        status: 0,
        error: Some(describe(error)),
        truncated: false,
        headers: Vec::new(),
        body: CompressedBody::default(),
        body_len: 0,
        fetched_at_ms,
        content_hash: 0,
        title: String::new(),
        description: String::new(),
        robots: Default::default(),
        depth: entry.depth,
        redirect_to: None,
        duplicate_of: None,
        keywords: String::new(),
        revisit_after_secs: None,
        aliases: aliases(entry),
        canonical: None,
        robots_header: RobotsDirectives::default(),
        change: 0,
        kind: ContentKind::Html,
        dates: Some(PageDates::default()),
    };
    StoredPage {
        record,
        outlinks: Outlinks::default(),
        targets: Vec::new(),
        follow: false,
        simhash: None,
        extra: KindRecords::default(),
    }
}

/// The redirects that led to `entry`, as recorded with the page (hops that a version-1
/// frontier entry did not name are left out).
fn aliases(entry: &FrontierEntry) -> Vec<String> {
    entry
        .redirected_from
        .iter()
        .filter(|hop| !hop.is_empty())
        .cloned()
        .collect()
}

/// The URLs a stored page adds to the frontier: followable links in scope and depth, and
/// a redirect's target (same depth, one hop more).
pub(crate) fn discovered(
    page: &StoredPage,
    url: &CanonicalUrl,
    entry: &FrontierEntry,
    scope: &Scope,
    config: &CrawlerConfig,
) -> Vec<(CanonicalUrl, FrontierEntry)> {
    let mut out = Vec::new();
    if let Some(target) = page
        .record
        .redirect_to
        .as_deref()
        .and_then(|t| CanonicalUrl::parse(t).ok())
    {
        let looped = target == *url
            || entry
                .redirected_from
                .iter()
                .any(|hop| hop == target.as_str());
        if entry.redirects() < usize::from(config.max_redirects)
            && !looped
            && scope.contains(&target)
        {
            let mut redirected_from = entry.redirected_from.clone();
            redirected_from.push(url.as_str().to_string());
            let next = FrontierEntry {
                referrer: entry.referrer.clone(),
                redirected_from,
                ..FrontierEntry::page(target.as_str(), entry.depth)
            };
            out.push((target, next));
        } else {
            debug!(%url, target = %target, looped, "redirect not followed (limit, loop or scope)");
        }
    }
    // The images of a page are fetched whatever its depth: they lead nowhere further.
    for image in shown_images(page, scope, config) {
        let next = FrontierEntry {
            referrer: Some(url.as_str().to_string()),
            kind: EntryKind::Image,
            ..FrontierEntry::page(image.target.as_str(), entry.depth + 1)
        };
        out.push((image.target.clone(), next));
    }
    if page.follow && entry.depth < config.max_depth {
        let links = page.outlinks.0.iter().zip(&page.targets);
        for (link, target) in links.filter(|(link, _)| !link.nofollow) {
            if scope.contains(target) {
                let next = FrontierEntry {
                    referrer: Some(url.as_str().to_string()),
                    ..FrontierEntry::page(link.target.clone(), entry.depth + 1)
                };
                out.push((target.clone(), next));
            }
        }
    }
    out
}

/// The images of a page that are fetched and recorded with it: those of a page whose links
/// are followed, in scope, on hosts whose images are read.
fn shown_images<'a>(
    page: &'a StoredPage,
    scope: &'a Scope,
    config: &'a CrawlerConfig,
) -> impl Iterator<Item = &'a ShownImage> + 'a {
    page.extra.images.iter().filter(move |image| {
        page.follow
            && scope.contains(&image.target)
            && config
                .kinds_for(image.target.as_url().host_str().unwrap_or_default())
                .contains(ContentKind::Image)
    })
}

/// What the page shows of the images recorded with it (`None`: none).
pub(crate) fn page_images(
    page: &StoredPage,
    scope: &Scope,
    config: &CrawlerConfig,
) -> Option<PageImages> {
    let images: Vec<ImageRef> = shown_images(page, scope, config)
        .map(|image| ImageRef {
            url: image.target.as_str().to_string(),
            alt: image.alt.clone(),
            title: image.title.clone(),
            context: image.context.clone(),
        })
        .collect();
    (!images.is_empty()).then_some(PageImages(images))
}
