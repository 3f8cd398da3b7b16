//! HTML (and XHTML) pages: decoded to UTF-8 as browsers decode them ([`crate::charset`]),
//! read for links, title, META and text hashes ([`crate::extract`]), and kept as text.

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use shared::ContentKind;
use shared::config::CrawlerConfig;
use shared::record::CompressedBody;

use super::{Body, Findings, KindReader, OverLimit, ReadContext};
use crate::extract::extract;

/// Reads HTML pages.
pub(crate) struct HtmlReader {
    limit: usize,
}

impl HtmlReader {
    /// Reads pages of up to `max_body_bytes`.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            limit: config.max_body_bytes,
        }
    }
}

impl KindReader for HtmlReader {
    fn kind(&self) -> ContentKind {
        ContentKind::Html
    }

    fn media_types(&self) -> &'static [&'static str] {
        &["text/html", "application/xhtml+xml"]
    }

    fn accept(&self) -> &'static str {
        "text/html,application/xhtml+xml;q=0.9"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        super::sniff::is_html(head)
    }

    fn body_limit(&self) -> usize {
        self.limit
    }

    fn over_limit(&self) -> OverLimit {
        OverLimit::Cut
    }

    fn read(&self, body: Body, context: ReadContext) -> BoxFuture<'static, Findings> {
        tokio::task::spawn_blocking(move || read_page(&body, &context))
            // Extraction never panics by design; if it did, keep the page without links.
            .map(Result::unwrap_or_default)
            .boxed()
    }
}

/// Decodes, reads and compresses one page.
fn read_page(body: &Body, context: &ReadContext) -> Findings {
    let text = crate::charset::decode(&body.bytes, &body.content_type);
    let extracted = extract(&text, context.url.as_url(), &context.agent);
    Findings {
        extracted,
        // Compressed here, not by the scheduler that writes it: it is most of a page
        // write's CPU, and the scheduler is the one task that writes.
        body: (!text.is_empty()).then(|| CompressedBody::compress(&text)),
        ..Findings::default()
    }
}
