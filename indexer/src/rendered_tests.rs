//! Pages rendered in a browser are indexed from the document after their scripts ran: a word
//! only the scripts wrote finds the page, the rendered title wins, a render that did not
//! finish changes nothing, and a page rendered (or no longer rendered) at a later crawl is
//! indexed again from what it now is. Built from a real store written as the crawler writes
//! it (`testutil.rs`).

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use tantivy::Term;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};

use crate::testutil::{TestStore, page};
use crate::{BuildMode, build};
use index_format::open_current;
use shared::record::{CompressedBody, PageRecord, RenderOutcome, RenderedPage};

const APP: &str = "http://spa.test/app";

/// The static page a script-built site serves: a shell that says it is loading.
fn shell() -> PageRecord {
    let mut shell = page(
        APP,
        "<html><head><title>Loading</title></head>\
         <body><div id=\"app\">Loading, please wait</div><script src=\"/app.js\"></script>\
         </body></html>",
    );
    shell.title = "Loading".into();
    shell
}

/// The same page after its scripts ran.
fn after_scripts() -> RenderedPage {
    RenderedPage {
        rendered_at_ms: 1_700_000_000_500,
        outcome: RenderOutcome::Rendered,
        html: Some(CompressedBody::compress(
            "<html><head><title>Kestrel watch</title></head><body><div id=\"app\">\
             <h1>Kestrels over the dunes</h1><p>A kestrel hovers into the wind before it \
             drops on a vole.</p></div></body></html>",
        )),
        requests: 3,
        refused: 1,
        elapsed_ms: 420,
    }
}

/// Documents whose `field` holds the token `word` (lowercased and stemmed already).
fn hits(store: &TestStore, field: &str, word: &str) -> usize {
    let current = open_current(store.data()).unwrap().unwrap();
    let field = current.index.schema().get_field(field).unwrap();
    let query = TermQuery::new(Term::from_field_text(field, word), IndexRecordOption::Basic);
    let searcher = current.index.reader().unwrap().searcher();
    searcher.search(&query, &Count).unwrap()
}

/// The stored snippet source of the document filed under `url`.
fn body_start(store: &TestStore, url: &str) -> String {
    let fields = open_current(store.data()).unwrap().unwrap().fields;
    let doc = store.indexed_doc(url).unwrap();
    doc.get_first(fields.body_start)
        .and_then(|v| v.as_str())
        .unwrap()
        .to_string()
}

#[test]
fn a_word_only_the_scripts_wrote_finds_the_rendered_page_and_its_rendered_title_wins() {
    let store = TestStore::new();
    store.put_rendered(&shell(), &[], Some(&after_scripts()));
    store.put_html(
        "http://static.test/",
        "Loading docks",
        "<p>Loading docks of the harbour</p>",
        &[],
    );
    let built = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!((built.indexed, built.total_docs), (2, 2));

    assert_eq!(hits(&store, "body", "kestrel"), 1);
    assert_eq!(hits(&store, "body", "vole"), 1);
    assert_eq!(hits(&store, "headings", "dune"), 1);
    assert_eq!(
        hits(&store, "title", "kestrel"),
        1,
        "the title after scripts"
    );
    assert_eq!(
        hits(&store, "title", "load"),
        1,
        "only the static page's own title says loading"
    );
    assert_eq!(
        hits(&store, "body", "wait"),
        0,
        "the shell's text is not the rendered page's"
    );
    assert!(
        body_start(&store, APP).contains("A kestrel hovers"),
        "snippets come from the rendered text"
    );
    assert!(body_start(&store, "http://static.test/").contains("harbour"));
}

#[test]
fn a_render_that_did_not_finish_changes_nothing() {
    let store = TestStore::new();
    let cut = RenderedPage {
        outcome: RenderOutcome::NotRendered {
            reason: "the deadline of 10 s passed".into(),
        },
        ..after_scripts()
    };
    store.put_rendered(&shell(), &[], Some(&cut));
    build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(hits(&store, "body", "kestrel"), 0);
    assert_eq!(hits(&store, "title", "kestrel"), 0);
    assert_eq!(hits(&store, "body", "wait"), 1, "the static page stands");
    assert_eq!(hits(&store, "title", "load"), 1);
}

#[test]
fn a_page_rendered_at_a_later_crawl_is_indexed_again_from_its_render_and_back() {
    let store = TestStore::new();
    store.put_rendered(&shell(), &[], None);
    store.put_html("http://static.test/", "Harbour", "<p>The harbour</p>", &[]);
    build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(hits(&store, "body", "kestrel"), 0);

    store.put_rendered(&shell(), &[], Some(&after_scripts()));
    let rendered = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!((rendered.indexed, rendered.unchanged), (1, 1));
    assert_eq!(hits(&store, "body", "kestrel"), 1);
    assert_eq!(hits(&store, "body", "wait"), 0);

    // Crawled again without rendering: the render is gone, the static page is indexed.
    store.put_rendered(&shell(), &[], None);
    let unrendered = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!((unrendered.indexed, unrendered.unchanged), (1, 1));
    assert_eq!(hits(&store, "body", "kestrel"), 0);
    assert_eq!(hits(&store, "body", "wait"), 1);
}

#[test]
fn a_template_that_scripts_write_is_learned_from_the_renders() {
    let store = TestStore::new();
    let articles = ["heron", "plover", "curlew", "dunlin", "avocet", "godwit"];
    for (i, bird) in articles.iter().enumerate() {
        let url = format!("http://spa.test/birds/{bird}");
        let mut shell = page(
            &url,
            "<html><body><div id=\"app\">Loading</div></body></html>",
        );
        // The crawler gives a rendered page its rendered text's hash: six pages, not copies.
        shell.content_hash = i as u64 + 1;
        // Every page's script writes the same banner, and an article of its own.
        let render = RenderedPage {
            html: Some(CompressedBody::compress(&format!(
                "<html><head><title>The {bird}</title></head><body><div id=\"app\">\
                 <div class=\"banner\"><p>Every field guide ships from the saltmarsh \
                 bookshop within two days.</p></div>\
                 <p>The {bird} feeds on the mudflats at low tide, probing the silt.</p>\
                 </div></body></html>"
            ))),
            ..after_scripts()
        };
        store.put_rendered(&shell, &[], Some(&render));
    }
    let built = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(built.total_docs, articles.len() as u64);
    // The banner is on every render: the host's template, not any page's text.
    assert_eq!(hits(&store, "body", "saltmarsh"), 0);
    assert_eq!(hits(&store, "body", "bookshop"), 0);
    for bird in articles {
        assert_eq!(hits(&store, "body", bird), 1, "{bird}");
    }
    assert_eq!(hits(&store, "body", "mudflat"), articles.len());
}
