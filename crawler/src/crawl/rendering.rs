//! A fetched HTML page rendered in its fetch task (see [`crate::render`]): the page's
//! fetch slot is held until its render ends, so the render's requests are the host's.
//!
//! What the render finds joins the static page: its links are read by the same extractor
//! and added to the static ones (the crawl follows both), its robots META adds to the
//! static page's (directives only restrict), and the document after scripts is kept in a
//! [`RenderedPage`] beside the page, for the indexer and `crawler explain`.
//!
//! A page whose text is already stored under another URL is not rendered: it will be stored
//! as that page's copy, whose links are not followed and which the index leaves out, so its
//! render would find nothing the crawl uses. (The Rust docs link every page to itself with
//! `?search=` from a script: rendered, each such copy ran rustdoc's search, doubling the
//! crawl.) A page too short to judge by its text (no simhash: an empty shell that scripts
//! fill) is always rendered.

use std::collections::HashSet;

use shared::record::{CompressedBody, RenderOutcome, RenderedPage};
use shared::{CanonicalUrl, now_ms};

use crate::extract::{Extracted, MAX_LINKS, extract};
use crate::fetch::Fetcher;
use crate::kind::Findings;
use crate::render::{Gain, OriginRules, RenderRequest, Renderer, SentRequest};
use crate::store::CopyCheck;

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
    if let Some(original) = text
        .simhash
        .and_then(|_| tools.copies.original(text.text_hash, url.as_str()))
    {
        return Rendering::not_rendered(format!(
            "its text is that of {original}, already stored: a copy is not rendered"
        ));
    }
    let renderer = &tools.renderer;
    let request = RenderRequest {
        url,
        headers: &page.headers,
        body: &page.body,
        own,
    };
    let rendered = renderer.render(fetcher, request).await;
    let (outcome, html) = match rendered.document {
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
            (RenderOutcome::Rendered, Some(html))
        }
        Err(reason) => {
            tracing::info!(%url, %reason, "page not rendered: the static page stands");
            (RenderOutcome::NotRendered { reason }, None)
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
    }
}

impl Rendering {
    /// A render not tried, for `reason`.
    fn not_rendered(reason: String) -> Self {
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

/// Adds the rendered page's links (those the static page lacks) and robots directives.
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
}
