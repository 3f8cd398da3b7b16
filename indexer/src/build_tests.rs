//! Builds against a real RocksDB store and a real tantivy index in a temporary directory.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use tantivy::Term;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};

use crate::testutil::{TestStore, link, page};
use crate::{BuildMode, BuildProgress, build, build_beside, build_with_progress};
use index_format::{DocState, current_generation, generation, open_current};

fn inlinks(store: &TestStore, url: &str) -> u64 {
    let fields = open_current(store.data()).unwrap().unwrap().fields;
    store
        .indexed_doc(url)
        .unwrap()
        .get_first(fields.inlinks)
        .and_then(|v| v.as_u64())
        .unwrap()
}

fn live_docs(store: &TestStore) -> u64 {
    let current = open_current(store.data()).unwrap().unwrap();
    current.index.reader().unwrap().searcher().num_docs()
}

/// Documents whose `field` holds the token `word` (already lowercased and stemmed).
fn hits(store: &TestStore, field: &str, word: &str) -> usize {
    let current = open_current(store.data()).unwrap().unwrap();
    let field = current.index.schema().get_field(field).unwrap();
    let query = TermQuery::new(Term::from_field_text(field, word), IndexRecordOption::Basic);
    current
        .index
        .reader()
        .unwrap()
        .searcher()
        .search(&query, &Count)
        .unwrap()
}

/// A store of `count` pages about herons, `http://a.test/N.html`.
fn heron_pages(count: usize) -> TestStore {
    let store = TestStore::new();
    for n in 0..count {
        let body = format!("<p>page {n} about herons</p>");
        store.put_html(&format!("http://a.test/{n}.html"), "Page", &body, &[]);
    }
    store
}

/// The sizes (documents, deleted ones included) of the current index's segments, smallest
/// first.
fn segment_sizes(store: &TestStore) -> Vec<u32> {
    let current = open_current(store.data()).unwrap().unwrap();
    let mut sizes: Vec<u32> = current
        .index
        .searchable_segment_metas()
        .unwrap()
        .iter()
        .map(|meta| meta.max_doc())
        .collect();
    sizes.sort_unstable();
    sizes
}

#[test]
fn noindex_pages_are_never_indexed_and_skips_are_counted() {
    let store = TestStore::new();
    store.put_html(
        "http://a.test/",
        "Home",
        "<p>Welcome</p>",
        &[
            link("http://a.test/moved", "bee"),
            link("http://a.test/secret", "secret"),
        ],
    );
    let mut secret = page("http://a.test/secret", "<p>classified material</p>");
    secret.robots.noindex = true;
    store.put(&secret, &[link("http://a.test/b", "from secret")]);
    store.put_html("http://a.test/b", "Bee", "<p>The bee page</p>", &[]);
    let mut missing = page("http://a.test/404", "<p>Not found</p>");
    missing.status = 404;
    store.put(&missing, &[]);
    let mut moved = page("http://a.test/moved", "");
    moved.status = 301;
    moved.redirect_to = Some("http://a.test/b".into());
    store.put(&moved, &[]);

    let summary = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(summary.generation, "gen-000001");
    assert_eq!((summary.total_docs, summary.indexed), (2, 2), "/ and /b");
    assert_eq!(
        (
            summary.skipped_noindex,
            summary.skipped_other,
            summary.skipped_duplicates
        ),
        (1, 2, 0)
    );
    assert_eq!(live_docs(&store), 2);
    assert!(store.indexed_doc("http://a.test/secret").is_none());
    assert_eq!(
        hits(&store, "body", "classifi"),
        0,
        "the noindex page's words are nowhere"
    );
    // /b: linked through the redirect by / and directly by the noindex page.
    assert_eq!(inlinks(&store, "http://a.test/b"), 2);
    assert_eq!(hits(&store, "anchor", "bee"), 1);
    assert_eq!(inlinks(&store, "http://a.test/"), 0);
}

#[test]
fn duplicates_collapse_to_the_shortest_url_with_merged_in_links() {
    let store = TestStore::new();
    let same = "<html><head><title>Start</title></head><body><p>Same text</p></body></html>";
    store.put(&page("http://a.test/index.html", same), &[]);
    store.put(&page("http://a.test/", same), &[]);
    let mut copy = page("http://a.test/copy-with-a-long-name", same);
    copy.duplicate_of = Some("http://a.test/index.html".into());
    store.put(&copy, &[link("http://a.test/other", "other")]);
    store.put_html(
        "http://a.test/other",
        "Other",
        "<p>o</p>",
        &[link("http://a.test/index.html", "home one")],
    );
    store.put_html(
        "http://a.test/x",
        "X",
        "<p>x</p>",
        &[link("http://a.test/", "home two")],
    );

    let summary = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(
        (summary.total_docs, summary.skipped_duplicates),
        (3, 2),
        "/, /other, /x"
    );
    assert!(store.indexed_doc("http://a.test/index.html").is_none());
    assert!(
        store
            .indexed_doc("http://a.test/copy-with-a-long-name")
            .is_none()
    );
    assert_eq!(
        inlinks(&store, "http://a.test/"),
        2,
        "from /other (to a copy) and from /x"
    );
    assert_eq!(inlinks(&store, "http://a.test/other"), 1, "from the copy");
    assert_eq!(hits(&store, "body", "same"), 1);
}

#[test]
fn incremental_builds_update_changed_documents_only() {
    let store = TestStore::new();
    store.put_html("http://a.test/a", "A", "<p>alpha</p>", &[]);
    store.put_html(
        "http://a.test/b",
        "B",
        "<p>bravo</p>",
        &[link("http://a.test/a", "to a")],
    );

    // The first build, even incremental, writes a generation.
    let first = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (first.generation.as_str(), first.indexed, first.total_docs),
        ("gen-000001", 2, 2)
    );
    assert_eq!((first.changed_pages, first.store_change), (2, 2));

    // A new page linking to /a: /c is new and /a's in-link count changed; /b did not change.
    let c = store.put_html(
        "http://a.test/c",
        "C",
        "<p>charlie</p>",
        &[link("http://a.test/a", "also to a")],
    );
    let second = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(second.generation, "gen-000001", "updated in place");
    assert_eq!(
        (
            second.indexed,
            second.unchanged,
            second.deleted,
            second.total_docs
        ),
        (2, 1, 0, 3)
    );
    assert_eq!(
        live_docs(&store),
        3,
        "the old /a was replaced, not duplicated"
    );
    assert_eq!(inlinks(&store, "http://a.test/a"), 2);
    assert_eq!(hits(&store, "anchor", "also"), 1);
    assert_eq!(
        (second.changed_pages, second.store_change),
        (1, 3),
        "only /c was written since the first build"
    );

    // Nothing changed: nothing written.
    let third = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (
            third.indexed,
            third.unchanged,
            third.deleted,
            third.total_docs
        ),
        (0, 3, 0, 3)
    );
    assert_eq!((third.changed_pages, third.store_change), (0, 3));

    // /b becomes noindex: its document goes; its link still counts for /a, so /a is unchanged.
    let mut b = page("http://a.test/b", "<p>bravo</p>");
    b.robots.noindex = true;
    store.put(&b, &[link("http://a.test/a", "to a")]);
    let fourth = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (
            fourth.indexed,
            fourth.unchanged,
            fourth.deleted,
            fourth.total_docs
        ),
        (0, 2, 1, 2)
    );
    assert_eq!((fourth.changed_pages, fourth.store_change), (1, 4));
    assert_eq!(live_docs(&store), 2);
    assert!(store.indexed_doc("http://a.test/b").is_none());
    assert_eq!(inlinks(&store, "http://a.test/a"), 2);
    assert_eq!(
        current_generation(store.data()).unwrap().as_deref(),
        Some("gen-000001")
    );

    // A re-crawl that stores /c again, even unchanged, is a new write: it is indexed again.
    store.put(&c, &[link("http://a.test/a", "also to a")]);
    let fifth = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (fifth.indexed, fifth.unchanged, fifth.changed_pages),
        (1, 1, 1)
    );
}

#[test]
fn full_builds_switch_current_and_keep_one_previous_generation() {
    let store = TestStore::new();
    store.put_html("http://a.test/", "Home", "<p>home</p>", &[]);
    let index = generation::index_dir(store.data());
    for n in 1..=3 {
        let summary = build(store.data(), BuildMode::Full).unwrap();
        let name = format!("gen-00000{n}");
        assert_eq!(summary.generation, name);
        assert_eq!(summary.indexed, 1, "a new generation indexes everything");
        assert_eq!(
            std::fs::read_to_string(index.join("CURRENT"))
                .unwrap()
                .trim(),
            name
        );
        assert_eq!(
            open_current(store.data()).unwrap().unwrap().generation,
            name
        );
    }
    assert!(
        !index.join("gen-000001").exists(),
        "older than the previous generation: removed"
    );
    assert!(
        index.join("gen-000002").exists(),
        "the previous generation stays for readers"
    );
    let d2 = DocState::load(&index.join("gen-000002")).unwrap().docs;
    let d3 = DocState::load(&index.join("gen-000003")).unwrap().docs;
    assert_eq!(d2, d3, "the same store gives the same documents");

    let incremental = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (
            incremental.generation.as_str(),
            incremental.indexed,
            incremental.unchanged
        ),
        ("gen-000003", 0, 1)
    );
}

#[test]
fn an_untrusted_state_makes_a_new_generation() {
    let store = TestStore::new();
    store.put_html("http://a.test/", "Home", "<p>home</p>", &[]);
    build(store.data(), BuildMode::Full).unwrap();
    let gen1 = generation::generation_dir(store.data(), "gen-000001");
    std::fs::write(gen1.join("state.json"), "garbage").unwrap();
    let summary = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(
        (summary.generation.as_str(), summary.indexed),
        ("gen-000002", 1)
    );
    assert_eq!(live_docs(&store), 1);
}

#[test]
fn no_index_before_the_first_build_and_no_store_is_an_error() {
    let store = TestStore::new();
    assert!(open_current(store.data()).unwrap().is_none());
    let empty = tempfile::tempdir().unwrap();
    let error = build(empty.path(), BuildMode::Full).unwrap_err();
    assert!(matches!(error, crate::Error::NoStore(_)), "{error}");
    assert!(!empty.path().join("store").exists(), "nothing created");
}

#[test]
fn a_damaged_current_is_replaced_by_a_new_generation() {
    let store = TestStore::new();
    store.put_html("http://a.test/", "Home", "<p>home</p>", &[]);
    build(store.data(), BuildMode::Full).unwrap();
    std::fs::write(
        index_format::current_generation_marker(store.data()),
        "not a generation",
    )
    .unwrap();
    assert!(
        open_current(store.data()).is_err(),
        "readers are told, not misled"
    );
    let summary = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(summary.generation, "gen-000002");
    assert_eq!(
        open_current(store.data()).unwrap().unwrap().generation,
        "gen-000002"
    );
}

#[test]
fn the_progress_ends_with_every_document_of_the_write_pass_done() {
    let store = TestStore::new();
    store.put_html(
        "http://a.test/",
        "Home",
        "<p>Welcome</p>",
        &[link("http://a.test/b", "bee")],
    );
    store.put_html("http://a.test/b", "Bee", "<p>The bee page</p>", &[]);
    store.put_html("http://a.test/c", "Sea", "<p>The sea page</p>", &[]);
    let mut secret = page("http://a.test/secret", "<p>classified</p>");
    secret.robots.noindex = true;
    store.put(&secret, &[]);

    let progress = BuildProgress::new();
    let summary = build_with_progress(store.data(), BuildMode::Full, &progress).unwrap();
    assert_eq!(summary.indexed, 3);
    assert_eq!((progress.total(), progress.done()), (3, 3), "written");

    // Nothing changed: the documents are gone through (found unchanged) all the same.
    let progress = BuildProgress::new();
    let summary = build_with_progress(store.data(), BuildMode::Incremental, &progress).unwrap();
    assert_eq!((summary.indexed, summary.unchanged), (0, 3));
    assert_eq!((progress.total(), progress.done()), (3, 3), "unchanged");
}

#[test]
fn a_build_beside_other_work_writes_the_same_index() {
    // build_beside takes one parser and one indexing thread; the documents are the same.
    let store = TestStore::new();
    for i in 0..40 {
        store.put_html(
            &format!("http://a.test/{i}"),
            &format!("Page {i}"),
            &format!("<p>tidepool {i} heron</p>"),
            &[link("http://a.test/0", "home")],
        );
    }
    let beside = build_beside(store.data(), BuildMode::Full).unwrap();
    assert_eq!((beside.total_docs, beside.indexed), (40, 40));
    assert_eq!(hits(&store, "body", "tidepool"), 40);
    assert_eq!(
        inlinks(&store, "http://a.test/0"),
        39,
        "from every other page"
    );
    let whole = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(whole.total_docs, beside.total_docs);
    assert_eq!(hits(&store, "body", "tidepool"), 40);
}

#[test]
fn a_new_generation_is_one_segment_and_an_incremental_build_keeps_its_documents() {
    let store = heron_pages(200);
    build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(
        segment_sizes(&store).len(),
        1,
        "a query reads one segment's dictionaries"
    );
    assert_eq!(live_docs(&store), 200);
    store.put_html("http://a.test/new.html", "New", "<p>a new heron</p>", &[]);
    let summary = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!((summary.indexed, summary.unchanged), (1, 200));
    assert_eq!(live_docs(&store), 201);
}

#[test]
fn updates_merge_their_small_segments_and_leave_the_full_builds_alone() {
    let store = heron_pages(2_000);
    build(store.data(), BuildMode::Full).unwrap();
    for (update, expected) in [
        (1, vec![1, 2_000]),
        (2, vec![2, 2_000]),
        (3, vec![3, 2_000]),
    ] {
        let url = format!("http://a.test/new{update}.html");
        let body = format!("<p>egret number {update}</p>");
        store.put_html(&url, "New", &body, &[]);
        build(store.data(), BuildMode::Incremental).unwrap();
        assert_eq!(segment_sizes(&store), expected, "after update {update}");
    }
    assert_eq!(live_docs(&store), 2_003);
    assert_eq!(hits(&store, "body", "egret"), 3);
}

#[test]
fn a_hosts_repeated_blocks_are_learned_and_left_out_but_a_table_of_contents_stays() {
    let store = TestStore::new();
    let chrome = "<div class=top>Welcome to Zorblatt documentation portal</div>\
                  <div class=menu><a href=/>Home</a> <a href=/a>About</a> <a href=/d>Download</a></div>";
    for i in 0..8 {
        store.put_html(
            &format!("http://docs.test/page{i}.html"),
            &format!("Page {i}"),
            &format!("{chrome}<h1>Page {i}</h1><p>Quibbling number{i} explained.</p>"),
            &[],
        );
    }
    // A table of contents: all of its text is link text.
    store.put_html(
        "http://docs.test/contents.html",
        "Contents",
        &format!(
            "{chrome}<ul><li><a href=/x>Frobnicating widgets</a></li>\
             <li><a href=/y>Defrobnicating them</a></li><li><a href=/z>Glossary</a></li></ul>"
        ),
        &[],
    );
    // Another host with two pages: too few to learn a template from.
    for i in 0..2 {
        store.put_html(
            &format!("http://small.test/{i}"),
            "Small",
            &format!("<div>Welcome to Zorblatt mirror</div><p>Mirror page{i}.</p>"),
            &[],
        );
    }
    build(store.data(), BuildMode::Incremental).unwrap();

    let fields = open_current(store.data()).unwrap().unwrap().fields;
    let body_start = |url: &str| {
        store
            .indexed_doc(url)
            .unwrap()
            .get_first(fields.body_start)
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap()
    };
    // The tagline is on every page of docs.test: out of its body and snippets.
    assert_eq!(
        body_start("http://docs.test/page3.html"),
        "Page 3 Quibbling number3 explained."
    );
    assert_eq!(
        hits(&store, "body", "zorblatt"),
        2,
        "only small.test's pages"
    );
    assert_eq!(hits(&store, "body", "quibbl"), 8);
    assert_eq!(
        body_start("http://small.test/1"),
        "Welcome to Zorblatt mirror Mirror page1."
    );
    // The table of contents is searchable and its snippet source is its links.
    assert_eq!(hits(&store, "body", "frobnic"), 1);
    assert_eq!(
        body_start("http://docs.test/contents.html"),
        "Frobnicating widgets Defrobnicating them Glossary"
    );
}
