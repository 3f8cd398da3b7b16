//! A fetched HTML page rendered in its fetch task (see [`crate::render`]): the page's
//! fetch slot is held until its render ends, so the render's requests are the host's.
//!
//! What the render finds joins the static page: its links are read by the same extractor
//! and added to the static ones (the crawl follows both), its robots META adds to the
//! static page's (directives only restrict), and the document after scripts is kept in a
//! [`RenderedPage`] beside the page, for the indexer and `crawler explain`.
//!
//! **Copies are judged by what a reader sees.** A rendered page's text hash, simhash, title
//! and description are those of its render (the title and description only when the render
//! has one), so the store and the index tell its copies by them: the routes of a
//! single-page app, one shell under many paths, are as many pages as they render to. Its
//! static text hash is kept too ([`CopyBasis::Rendered`]), keyed with its path, to tell its
//! *variants*: a page whose static text is a stored page's **and** whose URL differs from that
//! page's only in its query (`page.html?search=`, `?ref=home`) is a variant of it, stored as
//! its copy without a render ([`CopyBasis::VariantOf`]): the Rust docs link every page to
//! itself with `?search=` from a script, and rendered, each such link ran rustdoc's search,
//! doubling the crawl. A page being rendered holds a claim on its static text and path
//! until it is written, so its variants fetched meanwhile are not rendered either. The
//! query tells a variant because a router's routes are paths; an app that routes by query
//! has a shell too short to judge (no simhash), and a page too short to judge by its text
//! is always rendered.

use std::collections::HashSet;

use shared::record::{CompressedBody, RenderOutcome, RenderedPage};
use shared::{CanonicalUrl, now_ms};

use crate::extract::{Extracted, MAX_LINKS, extract};
use crate::fetch::Fetcher;
use crate::kind::Findings;
use crate::render::{Gain, OriginRules, RenderRequest, Renderer, SentRequest};
use crate::store::{BeforeRender, CopyCheck, RenderClaim};

/// What a fetch task renders with: the renderer, and the store's text index to tell a copy.
#[derive(Clone)]
pub(super) struct RenderTools {
    pub renderer: Renderer,
    pub copies: CopyCheck,
}

/// What a page's render gives the scheduler.
pub(crate) struct Rendering {
    /// The record stored beside the page.
    pub record: RenderedPage,
    /// The requests it sent, for the hosts' statistics.
    pub sent: Vec<SentRequest>,
    /// Which text tells whether the page is a copy.
    basis: CopyBasis,
    /// The page's claim on its static text and path, held until the scheduler has written
    /// it (this is dropped then): a variant fetched meanwhile is not rendered.
    _claim: Option<RenderClaim>,
}

/// Which text of a page on a rendered host tells whether it is a copy of a stored page.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CopyBasis {
    /// Its static text: it was not rendered (the render failed or was cut off).
    Static,
    /// Its rendered text; its static text hash, with its path, finds its variants.
    Rendered {
        /// The hash of its text before scripts.
        static_text_hash: u64,
    },
    /// A variant of this page, stored or being rendered (same path and static text, another
    /// query): its copy, not rendered.
    VariantOf(String),
}

/// The static answer to render.
pub(super) struct StaticPage {
    /// The answer's headers.
    pub headers: Vec<(String, String)>,
    /// Its body, as fetched.
    pub body: Vec<u8>,
}

/// Renders `url`'s page and adds what it finds to `findings`, unless its text is a copy of
/// a stored page's.
pub(super) async fn render(
    tools: &RenderTools,
    fetcher: &Fetcher,
    url: &CanonicalUrl,
    own: OriginRules,
    page: StaticPage,
    findings: &mut Findings,
    agent: &str,
) -> Rendering {
    let text = &findings.extracted;
    let static_text_hash = text.text_hash;
    let claim = match text
        .simhash
        .map(|_| tools.copies.before_render(static_text_hash, url))
    {
        Some(BeforeRender::VariantOf(original)) => return Rendering::variant(original),
        Some(BeforeRender::First(claim)) => Some(claim),
        None => None,
    };
    let renderer = &tools.renderer;
    let request = RenderRequest {
        url,
        headers: &page.headers,
        body: &page.body,
        own,
    };
    let rendered = renderer.render(fetcher, request).await;
    let (outcome, html, basis) = match rendered.document {
        Ok(html) => {
            let (found, html) = read(html, url, agent).await;
            renderer.observe(
                url.host(),
                Gain {
                    static_links: findings.extracted.links.len(),
                    rendered_links: found.links.len(),
                    static_text: findings.extracted.text_bytes,
                    rendered_text: found.text_bytes,
                },
            );
            join(&mut findings.extracted, found);
            let basis = CopyBasis::Rendered { static_text_hash };
            (RenderOutcome::Rendered, Some(html), basis)
        }
        Err(reason) => {
            tracing::info!(%url, %reason, "page not rendered: the static page stands");
            (
                RenderOutcome::NotRendered { reason },
                None,
                CopyBasis::Static,
            )
        }
    };
    Rendering {
        record: RenderedPage {
            rendered_at_ms: now_ms(),
            outcome,
            html,
            requests: rendered.requests,
            refused: rendered.refused,
            elapsed_ms: u32::try_from(rendered.elapsed.as_millis()).unwrap_or(u32::MAX),
        },
        sent: rendered.sent,
        basis,
        _claim: claim,
    }
}

impl Rendering {
    /// A variant of `original`, stored as its copy: not rendered.
    fn variant(original: String) -> Self {
        let reason = format!(
            "its text is that of {original}, under the same path (stored, or being \
             rendered): a copy (a variant by its query) is not rendered"
        );
        Self {
            record: RenderedPage {
                rendered_at_ms: now_ms(),
                outcome: RenderOutcome::NotRendered { reason },
                html: None,
                requests: 0,
                refused: 0,
                elapsed_ms: 0,
            },
            sent: Vec::new(),
            basis: CopyBasis::VariantOf(original),
            _claim: None,
        }
    }

    /// The stored page this one is a variant of, when it is one.
    pub(crate) fn variant_of(&self) -> Option<&str> {
        match &self.basis {
            CopyBasis::VariantOf(original) => Some(original),
            CopyBasis::Static | CopyBasis::Rendered { .. } => None,
        }
    }

    /// The page's text hash before scripts, when its render's text decides its copies.
    pub(crate) fn static_text_hash(&self) -> Option<u64> {
        match self.basis {
            CopyBasis::Rendered { static_text_hash } => Some(static_text_hash),
            CopyBasis::Static | CopyBasis::VariantOf(_) => None,
        }
    }
}

/// Reads the rendered document off the async threads, and compresses it.
async fn read(html: String, url: &CanonicalUrl, agent: &str) -> (Extracted, CompressedBody) {
    let (url, agent) = (url.clone(), agent.to_string());
    tokio::task::spawn_blocking(move || {
        let found = extract(&html, url.as_url(), &agent);
        (found, CompressedBody::compress(&html))
    })
    .await
    // Extraction never panics by design; if it did, the render adds nothing.
    .unwrap_or_else(|_| (Extracted::default(), CompressedBody::compress("")))
}

/// Adds the rendered page's links (those the static page lacks) and robots directives, and
/// gives the page the rendered text's identity: its hash, size and simhash, and its title and
/// description where the render has them (copies are judged by what a reader sees).
fn join(page: &mut Extracted, rendered: Extracted) {
    let mut seen: HashSet<(String, String)> = page
        .links
        .iter()
        .map(|link| (link.target.as_str().to_string(), link.anchor.clone()))
        .collect();
    for link in rendered.links {
        if page.links.len() >= MAX_LINKS {
            break;
        }
        if seen.insert((link.target.as_str().to_string(), link.anchor.clone())) {
            page.links.push(link);
        }
    }
    page.robots = page.robots.or(rendered.robots);
    page.text_hash = rendered.text_hash;
    page.text_bytes = rendered.text_bytes;
    page.simhash = rendered.simhash;
    if !rendered.title.is_empty() {
        page.title = rendered.title;
    }
    if !rendered.description.is_empty() {
        page.description = rendered.description;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extracted(title: &str, description: &str, text_hash: u64) -> Extracted {
        Extracted {
            title: title.into(),
            description: description.into(),
            text_hash,
            text_bytes: 40,
            simhash: Some(text_hash ^ 1),
            ..Extracted::default()
        }
    }

    #[test]
    fn a_render_gives_the_page_its_text_and_title_but_an_empty_render_title_keeps_the_static_one() {
        let mut page = extracted("Shop", "Lamps", 1);
        join(&mut page, extracted("Storm lanterns", "", 2));
        assert_eq!(
            (page.title.as_str(), page.description.as_str()),
            ("Storm lanterns", "Lamps")
        );
        assert_eq!((page.text_hash, page.simhash), (2, Some(3)));
        join(&mut page, Extracted::default());
        assert_eq!(page.title, "Storm lanterns");
        assert_eq!(
            (page.text_hash, page.text_bytes, page.simhash),
            (0, 0, None)
        );
    }
}
