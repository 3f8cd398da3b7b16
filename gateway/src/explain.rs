//! `/explain?url=`: for one URL, what the store and the index know of it, and a verdict on
//! why it is or is not searchable. A page rendered in a browser is shown as served and after
//! its scripts ran, side by side, read as the crawl reads pages ([`Reading`]), as `crawler
//! explain` shows it.

use serde::Serialize;
use shared::extract::Reading;
use shared::record::{PageRecord, RenderedPage, RobotsDirectives};
use shared::{CanonicalUrl, StoreReader};

use crate::error::AppError;
use crate::search::Searcher;
use crate::search_error::SearchError;
use shared::format_time_ms;

/// One fetch of a URL, in `/explain`'s history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Fetch {
    /// When (RFC 3339).
    pub at: String,
    /// The HTTP status (304: the stored copy was current; 0: no answer).
    pub status: u16,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

/// What rendering the page in a browser found, beside the page as served.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RenderReport {
    /// When it was rendered (RFC 3339).
    pub at: String,
    /// `rendered`, or `not rendered: REASON` (the static page then stands).
    pub outcome: String,
    /// How long the render took, in milliseconds.
    pub elapsed_ms: u32,
    /// The page's requests the crawler answered.
    pub requests: u32,
    /// Those it refused (robots.txt, types not fetched, the per-page cap).
    pub refused: u32,
    /// The page as served (`None`: its stored body does not decompress).
    pub static_page: Option<Reading>,
    /// The document after its scripts ran (`None`: not rendered, or it does not decompress).
    pub after_scripts: Option<Reading>,
}

impl RenderReport {
    fn of(page: &PageRecord, url: &CanonicalUrl, render: &RenderedPage) -> Self {
        let read = |html: Option<Result<String, _>>| {
            html.and_then(Result::ok)
                .map(|html| Reading::of(&html, url))
        };
        Self {
            at: format_time_ms(render.rendered_at_ms),
            outcome: render.outcome.describe(),
            elapsed_ms: render.elapsed_ms,
            requests: render.requests,
            refused: render.refused,
            static_page: read(Some(page.body.decompress())),
            after_scripts: read(render.rendered_html()),
        }
    }
}

/// The names of the directives set in `r`.
fn directive_names(r: RobotsDirectives) -> Vec<&'static str> {
    [
        (r.noindex, "noindex"),
        (r.nofollow, "nofollow"),
        (r.noarchive, "noarchive"),
        (r.nosnippet, "nosnippet"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect()
}

/// What is known of one URL.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UrlReport {
    /// The canonical URL.
    pub url: String,
    /// Whether the crawler stored an answer for it.
    pub stored: bool,
    /// The HTTP status stored (0: no answer).
    pub status: Option<u16>,
    /// Why the fetch failed, if it did.
    pub fetch_error: Option<String>,
    /// When it was fetched (RFC 3339).
    pub fetched_at: Option<String>,
    /// Link depth from a seed.
    pub depth: Option<u32>,
    /// robots directives found on the page (`noindex`, `nofollow`, `noarchive`, `nosnippet`).
    pub robots: Vec<&'static str>,
    /// Those of them that an `X-Robots-Tag` header gave (the others came from META tags).
    pub robots_from_header: Vec<&'static str>,
    /// Its last fetches, oldest first.
    pub history: Vec<Fetch>,
    /// It was stored after the served index was built (its store change number is newer
    /// than the index's): the next build picks it up.
    pub newer_than_index: bool,
    /// The page whose content it repeats.
    pub duplicate_of: Option<String>,
    /// Where it redirected.
    pub redirect_to: Option<String>,
    /// The URLs that redirected here (3xx or meta refresh), first hop first.
    pub aliases: Vec<String>,
    /// Whether the served index has a document for it.
    pub indexed: bool,
    /// In-links from distinct pages (from the index).
    pub inlinks: Option<u64>,
    /// Its title (from the index).
    pub title: Option<String>,
    /// The language its text is in (from the index), and why: `fr (its text (confidence
    /// 1.00))`.
    pub language: Option<String>,
    /// The indexed page it was folded into (same content, or its `rel=canonical`).
    pub folded_into: Option<String>,
    /// Why the crawler dropped it unfetched (a robots.txt rule and its line ...).
    pub not_fetched: Option<String>,
    /// What rendering it in a browser found, when the crawl rendered it (or tried).
    pub render: Option<RenderReport>,
    /// One sentence: why it is or is not searchable.
    pub verdict: String,
}

impl UrlReport {
    /// Looks `url` up. Blocking: call it off the async threads.
    pub fn gather(searcher: &Searcher, url: &str) -> Result<Self, AppError> {
        let url = url.trim();
        if url.is_empty() {
            return Err(AppError::BadRequest(
                "say which page with /explain?url=…".into(),
            ));
        }
        let canonical = CanonicalUrl::parse(url)
            .map_err(|e| AppError::BadRequest(format!("{url:?} is not a page address: {e}")))?;
        let mut report = UrlReport {
            url: canonical.to_string(),
            ..UrlReport::default()
        };
        // The store that knows the URL: of its partition, when the data is partitioned.
        let mut dirs = searcher.data_dirs();
        let mut store = None;
        let mut dir = searcher.data().to_path_buf();
        for candidate in dirs.drain(..) {
            let Ok(opened) = StoreReader::open(&candidate) else {
                continue;
            };
            let knows = opened.page(canonical.as_str())?.is_some()
                || opened.skipped(canonical.as_str())?.is_some();
            if store.is_none() || knows {
                dir = candidate;
                store = Some(opened);
            }
            if knows {
                break;
            }
        }
        if let Some(store) = &store
            && let Some(skipped) = store.skipped(canonical.as_str())?
        {
            report.not_fetched = Some(format!(
                "{} (decided at {})",
                skipped.reason,
                format_time_ms(skipped.at_ms)
            ));
        }
        if let Some(store) = &store
            && let Some(page) = store.page(canonical.as_str())?
        {
            report.render = store
                .rendered(canonical.as_str())?
                .map(|render| RenderReport::of(&page, &canonical, &render));
            report.stored = true;
            report.status = Some(page.status);
            report.fetch_error = page.error;
            report.fetched_at = Some(format_time_ms(page.fetched_at_ms));
            report.depth = Some(page.depth);
            report.robots = directive_names(page.robots);
            report.robots_from_header = directive_names(page.robots_header);
            report.history = store
                .history(canonical.as_str())?
                .0
                .into_iter()
                .map(|fetch| Fetch {
                    at: format_time_ms(fetch.at_ms),
                    status: fetch.status,
                    error: fetch.error,
                })
                .collect();
            let indexed_change = searcher
                .facts_of(&dir)
                .and_then(|facts| index_format::indexed_store_change(&dir, &facts.generation));
            report.newer_than_index = indexed_change.is_some_and(|indexed| page.change > indexed);
            report.duplicate_of = page.duplicate_of;
            report.redirect_to = page.redirect_to;
            report.aliases = page.aliases;
        }
        match searcher.document(canonical.as_str()) {
            Ok(Some(doc)) => {
                report.indexed = true;
                report.inlinks = Some(doc.signals.inlinks);
                report.title = Some(doc.title);
                report.language = Some(format!("{} ({})", doc.lang, doc.lang_reason));
            }
            Ok(None) => {
                report.folded_into = searcher
                    .document_holding_copy(canonical.as_str())?
                    .map(|doc| doc.url);
            }
            Err(SearchError::NoIndex) => {}
            Err(e) => return Err(e.into()),
        }
        report.verdict = report.verdict();
        Ok(report)
    }

    fn verdict(&self) -> String {
        if self.indexed && self.newer_than_index {
            return "indexed: it can be found, as it was at the last build; a newer copy was \
                    stored since, and the next build (indexer build) updates it"
                .into();
        }
        if self.indexed {
            return "indexed: it can be found".into();
        }
        if let Some(why) = &self.not_fetched
            && !self.stored
        {
            return format!("not fetched: {why}");
        }
        if !self.stored {
            return "not stored: never fetched (not linked from the crawl, out of scope, \
                    disallowed by robots.txt, a trap rule or budget, or still queued)"
                .into();
        }
        if self.robots.contains(&"noindex") {
            let source = if self.robots_from_header.contains(&"noindex") {
                "an X-Robots-Tag header"
            } else {
                "a robots META tag"
            };
            return format!("not indexed: the page asks not to be (noindex, in {source})");
        }
        if let Some(holder) = &self.folded_into {
            return format!(
                "not indexed on its own: it is found as {holder}, the one URL the index keeps \
                 for this content (its rel=canonical target, else the shortest URL)"
            );
        }
        if let Some(target) = &self.redirect_to {
            return format!("not indexed: it redirects to {target}");
        }
        if let Some(error) = &self.fetch_error {
            return format!("not indexed: the fetch failed ({error})");
        }
        match self.status {
            Some(status) if !(200..300).contains(&status) => {
                format!("not indexed: it answered HTTP {status}")
            }
            _ if self.newer_than_index => "not in the index yet: stored after the last \
                                          build; the next build (indexer build) picks it up"
                .into(),
            _ => match &self.duplicate_of {
                Some(other) => format!("not indexed on its own: same content as {other}"),
                None => "stored but not in the index: an empty or non-HTML page, a duplicate, \
                         or the index is older than the crawl (run indexer build)"
                    .into(),
            },
        }
    }

    /// The rows of the HTML page.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let mut rows = vec![("URL", self.url.clone()), ("verdict", self.verdict.clone())];
        if let Some(why) = &self.not_fetched {
            rows.push(("not fetched", why.clone()));
        }
        let mut add = |name, value: Option<String>| {
            if let Some(value) = value {
                rows.push((name, value));
            }
        };
        add("title", self.title.clone());
        add("language", self.language.clone());
        add("in-links", self.inlinks.map(|n| n.to_string()));
        add("HTTP status", self.status.map(|s| s.to_string()));
        add("fetch error", self.fetch_error.clone());
        add("fetched at", self.fetched_at.clone());
        add("depth", self.depth.map(|d| d.to_string()));
        add(
            "robots",
            (!self.robots.is_empty()).then(|| self.robots.join(", ")),
        );
        add(
            "robots, from an X-Robots-Tag header",
            (!self.robots_from_header.is_empty()).then(|| self.robots_from_header.join(", ")),
        );
        add(
            "fetches (oldest first)",
            (!self.history.is_empty()).then(|| {
                self.history
                    .iter()
                    .map(|fetch| match &fetch.error {
                        Some(error) => format!("{} failed: {error}", fetch.at),
                        None => format!("{} {}", fetch.at, fetch.status),
                    })
                    .collect::<Vec<_>>()
                    .join(" · ")
            }),
        );
        if let Some(render) = &self.render {
            add(
                "browser render",
                Some(format!(
                    "{}, at {} in {} ms; {} requests answered, {} refused",
                    render.outcome, render.at, render.elapsed_ms, render.requests, render.refused
                )),
            );
            add(
                "static page",
                Some(
                    render
                        .static_page
                        .map_or_else(|| "not readable".to_string(), Reading::describe),
                ),
            );
            add(
                "after scripts",
                render.after_scripts.map(|after| {
                    let added = render
                        .static_page
                        .map(|before| format!(" {}", before.added(after)))
                        .unwrap_or_default();
                    format!("{}{added}", after.describe())
                }),
            );
        }
        add("duplicate of", self.duplicate_of.clone());
        add("found as", self.folded_into.clone());
        add("redirects to", self.redirect_to.clone());
        add(
            "reached by redirects from",
            (!self.aliases.is_empty()).then(|| self.aliases.join(" → ")),
        );
        rows
    }
}
