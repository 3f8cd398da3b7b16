//! Sharded builds: one index shard per partition, with the link signals and copies of one
//! store holding every page. Real RocksDB stores and real tantivy indexes, as in
//! `build_tests.rs`.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::collections::BTreeMap;
use std::path::Path;

use shared::partition::{PartitionId, Partitions};
use shared::record::Outlink;
use tantivy::TantivyDocument;
use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::Value;

use crate::testutil::{TestStore, link, page};
use crate::{BuildMode, build};

/// Hosts, each with pages linking within and across hosts.
const HOSTS: [&str; 5] = ["a.test", "b.test", "c.test", "d.test", "e.test"];
const PARTITIONS: u32 = 3;

/// What the index says of a document: in-links, external in-links, PageRank level.
type Facts = (u64, u64, u64);

/// Every document of the index in `data`, by URL.
fn documents(data: &Path) -> BTreeMap<String, Facts> {
    let current = index_format::open_current(data).unwrap().unwrap();
    let searcher = current.index.reader().unwrap().searcher();
    let fields = current.fields;
    let number = |doc: &TantivyDocument, field| {
        doc.get_first(field)
            .and_then(|v| v.as_u64())
            .unwrap_or_default()
    };
    let mut out = BTreeMap::new();
    for address in searcher.search(&AllQuery, &DocSetCollector).unwrap() {
        let doc: TantivyDocument = searcher.doc(address).unwrap();
        let url = doc
            .get_first(fields.url)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        let facts = (
            number(&doc, fields.inlinks),
            number(&doc, fields.external_inlinks),
            number(&doc, fields.rank_level),
        );
        out.insert(url, facts);
    }
    out
}

/// The documents holding each term of the anchor-text field, added into `out`.
fn anchor_terms(data: &Path, out: &mut BTreeMap<String, u64>) {
    let current = index_format::open_current(data).unwrap().unwrap();
    let searcher = current.index.reader().unwrap().searcher();
    for segment in searcher.segment_readers() {
        let inverted = segment.inverted_index(current.fields.anchor).unwrap();
        let mut terms = inverted.terms().stream().unwrap();
        while terms.advance() {
            let term = String::from_utf8(terms.key().to_vec()).unwrap();
            *out.entry(term).or_default() += u64::from(terms.value().doc_freq);
        }
    }
}

/// The pages of the test: per host an index page linking to its two pages and to the next
/// host's index, one page linking to `a.test`'s; and one copy of `a.test/one` on `e.test`.
fn pages() -> Vec<(String, String, Vec<Outlink>)> {
    let mut pages = Vec::new();
    for (i, host) in HOSTS.iter().enumerate() {
        let next = HOSTS[(i + 1) % HOSTS.len()];
        pages.push((
            format!("http://{host}/"),
            format!("<p>index of {host} heron</p>"),
            vec![
                link(&format!("http://{host}/one"), "first"),
                link(&format!("http://{host}/two"), "second"),
                link(&format!("http://{next}/"), &format!("next site {next}")),
            ],
        ));
        pages.push((
            format!("http://{host}/one"),
            format!("<p>page one of {host}</p>"),
            vec![link("http://a.test/one", "the first page")],
        ));
        pages.push((
            format!("http://{host}/two"),
            format!("<p>page two of {host} heron heron</p>"),
            vec![],
        ));
    }
    pages.push((
        "http://e.test/copy-of-a-one".into(),
        "<p>page one of a.test</p>".into(),
        vec![link("http://b.test/two", "from the copy")],
    ));
    pages
}

fn html(body: &str) -> String {
    format!("<html><head><title>T</title></head><body>{body}</body></html>")
}

#[test]
fn shards_hold_their_partitions_pages_with_the_global_signals() {
    let single = TestStore::new();
    let sharded = tempfile::tempdir().unwrap();
    let partitions = Partitions::new(PARTITIONS).unwrap();
    let stores: Vec<TestStore> = partitions
        .all()
        .map(|p| TestStore::at(&p.data_dir(sharded.path())))
        .collect();
    let owner = |url: &str| {
        let host = url::Url::parse(url)
            .unwrap()
            .host_str()
            .unwrap()
            .to_string();
        partitions.of_host(&host)
    };
    for (url, body, links) in pages() {
        let record = page(&url, &html(&body));
        single.put(&record, &links);
        stores[owner(&url).get() as usize].put(&record, &links);
    }

    let one = build(single.data(), BuildMode::Full).unwrap();
    let all = build(sharded.path(), BuildMode::Full).unwrap();
    assert_eq!(all.total_docs, one.total_docs);
    assert_eq!(
        all.skipped_duplicates, 1,
        "the copy folds across partitions"
    );
    assert!(
        !sharded.path().join("index").exists(),
        "no index of the whole directory"
    );

    let expected = documents(single.data());
    let mut found = BTreeMap::new();
    for p in partitions.all() {
        let shard = documents(&p.data_dir(sharded.path()));
        assert!(
            shard.keys().all(|url| owner(url) == p),
            "{p} holds only its hosts' documents"
        );
        found.extend(shard);
    }
    assert_eq!(found, expected, "every signal as one index has it");
    let (mut one_anchors, mut shard_anchors) = (BTreeMap::new(), BTreeMap::new());
    anchor_terms(single.data(), &mut one_anchors);
    for p in partitions.all() {
        anchor_terms(&p.data_dir(sharded.path()), &mut shard_anchors);
    }
    assert_eq!(
        shard_anchors, one_anchors,
        "anchor text as one index has it"
    );
    assert!(
        one_anchors.contains_key("copi"),
        "the copy's anchor, stemmed"
    );
    let a_one = &expected["http://a.test/one"];
    assert_eq!(a_one.0, 5, "a.test/ and the four other /one pages");
}

#[test]
fn an_incremental_build_updates_the_other_shards_signals() {
    let sharded = tempfile::tempdir().unwrap();
    let partitions = Partitions::new(PARTITIONS).unwrap();
    let stores: Vec<TestStore> = partitions
        .all()
        .map(|p| TestStore::at(&p.data_dir(sharded.path())))
        .collect();
    let owner = |host: &str| partitions.of_host(host).get() as usize;
    let (a, b) = ("http://a.test/", "http://b.test/");
    let (pa, pb) = (owner("a.test"), owner("b.test"));
    assert_ne!(pa, pb, "the test needs two partitions");
    stores[pa].put(&page(a, &html("<p>alpha</p>")), &[]);
    stores[pb].put(&page(b, &html("<p>bravo</p>")), &[]);
    build(sharded.path(), BuildMode::Incremental).unwrap();
    let shard_a = PartitionId::new(pa as u32).data_dir(sharded.path());
    assert_eq!(documents(&shard_a)[a].0, 0);

    // A new page in b's partition links to a's: a's shard is rewritten, b's gains one.
    stores[pb].put(
        &page("http://b.test/new", &html("<p>new</p>")),
        &[link(a, "alpha site")],
    );
    let summary = build(sharded.path(), BuildMode::Incremental).unwrap();
    // The new page and a's at least (PageRank levels may move b's too).
    assert!(summary.indexed >= 2, "{summary}");
    assert_eq!(summary.total_docs, 3);
    assert_eq!(documents(&shard_a)[a].0, 1);
    let mut anchors = BTreeMap::new();
    anchor_terms(&shard_a, &mut anchors);
    assert!(anchors.contains_key("alpha"), "{anchors:?}");
}
