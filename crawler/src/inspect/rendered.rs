//! What `crawler explain` says of a page rendered in a browser: how the render ended (or why
//! it did not), the requests the crawler answered and refused for it, how long it took, and
//! the links and text of the static page beside those of the document after its scripts ran,
//! both read by the crawler's own extractor ([`Reading`]), so a user sees what the scripts
//! added.

use std::io::Write;

use anyhow::Result;
use shared::record::{RenderOutcome, RenderedPage};
use shared::{CanonicalUrl, PageRecord, format_time_ms};

use crate::extract::Reading;

/// Writes what rendering `page` found: the outcome line, then the static page's reading and,
/// when the render holds the document after scripts, its reading and the difference.
pub(super) fn explain_render(
    page: &PageRecord,
    url: &CanonicalUrl,
    render: &RenderedPage,
    out: &mut impl Write,
) -> Result<()> {
    let outcome = match &render.outcome {
        RenderOutcome::Rendered => "rendered".to_string(),
        RenderOutcome::NotRendered { reason } => {
            format!("not rendered ({reason}): the static page stands")
        }
    };
    writeln!(
        out,
        "  browser render at {}: {outcome}, in {} ms; {} requests answered, {} refused",
        format_time_ms(render.rendered_at_ms),
        render.elapsed_ms,
        render.requests,
        render.refused
    )?;
    let static_page = match page.body.decompress() {
        Ok(html) => {
            let reading = Reading::of(&html, url);
            writeln!(out, "    static page:   {}", reading.describe())?;
            Some(reading)
        }
        Err(error) => {
            writeln!(
                out,
                "    static page:   its stored body does not decompress ({error})"
            )?;
            None
        }
    };
    let after = match (render.rendered_html(), &render.outcome) {
        (Some(Ok(html)), _) => Reading::of(&html, url),
        (Some(Err(error)), _) => {
            writeln!(
                out,
                "    after scripts: the stored document does not decompress ({error})"
            )?;
            return Ok(());
        }
        (None, RenderOutcome::Rendered) => {
            writeln!(out, "    after scripts: no document stored")?;
            return Ok(());
        }
        (None, RenderOutcome::NotRendered { .. }) => return Ok(()),
    };
    let added = static_page
        .map(|before| format!(" {}", before.added(after)))
        .unwrap_or_default();
    writeln!(out, "    after scripts: {}{added}", after.describe())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use shared::record::{CompressedBody, Outlinks, RevisitRecord};

    use super::*;
    use crate::store::{KindCommit, PageCommit, PageStore};

    const URL: &str = "http://spa.test/app";
    /// One link, and 26 bytes of visible text: `Loading, please wait About`.
    const SHELL: &str = "<html><head><title>App</title></head><body>\
        <div id=\"app\">Loading, please wait</div><a href=\"/about\">About</a>\
        <script>render()</script></body></html>";
    /// Three links (the one to the page itself dropped), and 47 bytes of visible text:
    /// `Kestrels over the dunes About Kestrel Vole Here`.
    const AFTER: &str = "<html><head><title>App</title></head><body>\
        <p>Kestrels over the dunes</p><a href=\"/about\">About</a>\
        <a href=\"/birds/kestrel\">Kestrel</a><a href=\"/birds/vole\">Vole</a>\
        <a href=\"/app\">Here</a></body></html>";

    /// `crawler explain URL` of a store holding the page with `render`.
    fn explained(render: &RenderedPage) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let mut page = PageRecord {
            url: URL.into(),
            status: 200,
            body: CompressedBody::compress(SHELL),
            body_len: SHELL.len() as u64,
            title: "App".into(),
            ..PageRecord::default()
        };
        store
            .commit_page(PageCommit {
                done: None,
                page: &mut page,
                outlinks: &Outlinks::default(),
                discovered: Vec::new(),
                revisit: &RevisitRecord::default(),
                simhash: None,
                failed_before: 0,
                kind: KindCommit::default(),
                rendered: Some(render),
                static_text_hash: None,
            })
            .unwrap();
        drop(store);
        let mut out = Vec::new();
        let crawl = crate::inspect::CrawlStores::open(dir.path()).unwrap();
        crate::inspect::explain(&crawl, URL, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn render(outcome: RenderOutcome, html: Option<&str>) -> RenderedPage {
        RenderedPage {
            rendered_at_ms: 0,
            outcome,
            html: html.map(CompressedBody::compress),
            requests: 7,
            refused: 2,
            elapsed_ms: 840,
        }
    }

    #[test]
    fn explain_shows_the_render_and_what_the_scripts_added_beside_the_static_page() {
        let text = explained(&render(RenderOutcome::Rendered, Some(AFTER)));
        let expected = "  browser render at 1970-01-01T00:00:00Z: rendered, in 840 ms; 7 requests \
             answered, 2 refused\n    static page:   1 links, 26 bytes of text\n    after \
             scripts: 3 links, 47 bytes of text (+2 links, +21 bytes of text)\n";
        assert!(text.contains(expected), "{text}");
        assert!(
            text.starts_with("http://spa.test/app\n  status 200"),
            "{text}"
        );
        assert!(
            text.contains("  title: \"App\"\n"),
            "the rest stays: {text}"
        );
    }

    #[test]
    fn explain_of_a_render_cut_off_gives_its_reason_and_only_the_static_page() {
        let cut = RenderOutcome::NotRendered {
            reason: "the deadline of 10 s passed".into(),
        };
        let text = explained(&render(cut, None));
        assert!(
            text.contains(
                "not rendered (the deadline of 10 s passed): the static page stands, in 840 ms; \
                 7 requests answered, 2 refused\n    static page:   1 links, 26 bytes of text\n"
            ),
            "{text}"
        );
        assert!(!text.contains("after scripts"), "{text}");
    }
}
