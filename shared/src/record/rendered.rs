//! What rendering a page in a headless browser found ([`RenderedPage`], family `rendered`),
//! stored beside the static page under the same URL and written in the same batch.
//!
//! The static page record stays what it was: the answer's bytes, the cached copy searchd
//! shows. The rendered record adds the document as it stood after the page's scripts ran, so
//! the indexer can read its text from there ([`RenderedPage::html`]), and `crawler explain`
//! can show what the scripts added. A render that did not finish keeps its reason
//! ([`RenderOutcome::NotRendered`]); the static page then stands alone.

use serde::{Deserialize, Serialize};

use super::{CompressedBody, Record, RecordError};

/// What rendering a page in a browser found, stored beside the static page
/// (column family `rendered`, keyed by the page's URL).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedPage {
    /// When the render ended, ms since the Unix epoch.
    pub rendered_at_ms: u64,
    /// What came of it.
    pub outcome: RenderOutcome,
    /// The document after its scripts ran (the serialized DOM), when rendered.
    pub html: Option<CompressedBody>,
    /// Requests the page made that the crawler answered (fetched, or from its cache).
    pub requests: u32,
    /// Requests refused (robots.txt, kinds not fetched, the per-page cap, WebSockets, ...).
    pub refused: u32,
    /// How long the render took, ms.
    pub elapsed_ms: u32,
}

/// What came of a render.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RenderOutcome {
    /// The page rendered; `html` holds the document after scripts.
    Rendered,
    /// Not rendered (the deadline passed, the browser failed, ...): the static page stands.
    NotRendered {
        /// Why, in words.
        reason: String,
    },
}

impl Record for RenderedPage {
    const KIND: &'static str = "rendered page";
    const VERSION: u8 = 1;
}

impl RenderedPage {
    /// The document after scripts, decompressed: `None` unless the outcome is
    /// [`RenderOutcome::Rendered`] and the record holds the HTML; an error when the stored
    /// HTML does not decompress.
    pub fn rendered_html(&self) -> Option<Result<String, RecordError>> {
        match (&self.outcome, &self.html) {
            (RenderOutcome::Rendered, Some(html)) => Some(html.decompress()),
            (RenderOutcome::Rendered, None) | (RenderOutcome::NotRendered { .. }, _) => None,
        }
    }

    /// The document after scripts, still compressed: `None` unless the outcome is
    /// [`RenderOutcome::Rendered`] and the record holds the HTML.
    pub fn into_document(self) -> Option<CompressedBody> {
        match self.outcome {
            RenderOutcome::Rendered => self.html,
            RenderOutcome::NotRendered { .. } => None,
        }
    }
}

impl RenderOutcome {
    /// How `explain` says it: `rendered`, or `not rendered: REASON`.
    pub fn describe(&self) -> String {
        match self {
            RenderOutcome::Rendered => "rendered".into(),
            RenderOutcome::NotRendered { reason } => format!("not rendered: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(html: &str) -> RenderedPage {
        RenderedPage {
            rendered_at_ms: 1_700_000_000_123,
            outcome: RenderOutcome::Rendered,
            html: Some(CompressedBody::compress(html)),
            requests: 7,
            refused: 2,
            elapsed_ms: 840,
        }
    }

    #[test]
    fn a_rendered_page_and_one_cut_off_round_trip_behind_their_version() {
        let page = rendered("<p>built by a script</p>");
        let bytes = page.encode();
        assert_eq!(bytes.first(), Some(&1));
        assert_eq!(RenderedPage::decode(&bytes).unwrap(), page);
        let cut = RenderedPage {
            outcome: RenderOutcome::NotRendered {
                reason: "deadline of 10 s passed".into(),
            },
            html: None,
            ..page
        };
        assert_eq!(RenderedPage::decode(&cut.encode()).unwrap(), cut);
    }

    #[test]
    fn only_a_rendered_outcome_with_html_gives_the_document_after_scripts() {
        let page = rendered("<p>built by a script</p>");
        assert_eq!(
            page.rendered_html().unwrap().unwrap(),
            "<p>built by a script</p>"
        );
        let without_html = RenderedPage {
            html: None,
            ..page.clone()
        };
        assert!(without_html.rendered_html().is_none());
        let cut = RenderedPage {
            outcome: RenderOutcome::NotRendered {
                reason: "the browser crashed".into(),
            },
            ..page
        };
        assert!(
            cut.rendered_html().is_none(),
            "a cut-off render's HTML is not read"
        );
        assert_eq!(cut.outcome.describe(), "not rendered: the browser crashed");
    }

    #[test]
    fn a_future_version_and_garbage_are_errors() {
        let mut bytes = rendered("x").encode();
        bytes[0] = 2;
        assert!(matches!(
            RenderedPage::decode(&bytes),
            Err(RecordError::UnknownVersion { found: 2, .. })
        ));
        assert!(RenderedPage::decode(&[1, 0xFF, 0xFF, 0xFF]).is_err());
        assert!(matches!(
            RenderedPage::decode(&[]),
            Err(RecordError::Empty(_))
        ));
    }
}
