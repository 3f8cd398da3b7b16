//! Image indexes built from a real RocksDB store (written as the crawler writes it,
//! `testutil.rs`) into real tantivy indexes, full, incremental and sharded.

#![allow(clippy::unwrap_used)] // tests fail loudly on purpose

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use index_format::{ImageFields, current_generation, generation_dir, image_schema, images_dir};
use shared::partition::Partitions;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::QueryParser;
use tantivy::schema::Value;
use tantivy::{Index, TantivyDocument};

use crate::testutil::{TestStore, image_page, link, page, png, shows};
use crate::{BuildMode, build};

/// The image index of the current generation of `data`.
fn image_index(data: &Path) -> Index {
    let index = Index::open_in_dir(images_dir_of(data)).unwrap();
    assert_eq!(index.schema(), image_schema());
    index_format::tokenize::register(&index);
    index
}

fn images_dir_of(data: &Path) -> PathBuf {
    let name = current_generation(data).unwrap().unwrap();
    images_dir(&generation_dir(data, &name))
}

/// What the image index holds of each image: its stored document, by URL.
fn images(data: &Path) -> BTreeMap<String, TantivyDocument> {
    let index = image_index(data);
    let fields = ImageFields::new(&index.schema()).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let mut out = BTreeMap::new();
    for address in searcher
        .search(&tantivy::query::AllQuery, &DocSetCollector)
        .unwrap()
    {
        let doc: TantivyDocument = searcher.doc(address).unwrap();
        let url = text(&doc, fields.url);
        assert!(
            out.insert(url.clone(), doc).is_none(),
            "one document per image: {url}"
        );
    }
    out
}

/// The URLs of the images whose `field` matches `query`, as a user's words are parsed.
fn found(data: &Path, field: &str, query: &str) -> Vec<String> {
    let index = image_index(data);
    let fields = ImageFields::new(&index.schema()).unwrap();
    let field = index.schema().get_field(field).unwrap();
    let query = QueryParser::for_index(&index, vec![field])
        .parse_query(query)
        .unwrap();
    let searcher = index.reader().unwrap().searcher();
    let mut urls: Vec<String> = searcher
        .search(&query, &TopDocs::with_limit(100).order_by_score())
        .unwrap()
        .into_iter()
        .map(|(_, address)| text(&searcher.doc(address).unwrap(), fields.url))
        .collect();
    urls.sort();
    urls
}

fn text(doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

fn number(doc: &TantivyDocument, field: tantivy::schema::Field) -> u64 {
    doc.get_first(field).and_then(|v| v.as_u64()).unwrap()
}

const PANDA: &str = "http://img.test/photos/red%20panda.png";
const LION: &str = "http://img.test/lion.png";
const GONE: &str = "http://img.test/gone.png";
const COPY: &str = "http://img.test/copy-of-lion.png";
const SECRET: &str = "http://img.test/secret.png";
const ALONE: &str = "http://img.test/lonely-heron.png";

/// Home links to the zoo and the blog; the blog links to the zoo: the zoo has 2 in-links,
/// the blog 1. Both show the panda; the zoo shows the lion (which asked for `noindex`), a
/// 404 and a copy; a `noindex` page shows the secret; nobody shows the heron.
fn gallery() -> TestStore {
    let store = TestStore::new();
    store.put_html_showing(
        "http://a.test/",
        "Home",
        &[
            link("http://a.test/zoo", "zoo"),
            link("http://a.test/blog", "blog"),
        ],
        &[],
    );
    store.put_html_showing(
        "http://a.test/blog",
        "Weekend notes",
        &[link("http://a.test/zoo", "the zoo")],
        &[shows(
            PANDA,
            "sleepy red panda",
            "asleep high in a maple tree",
        )],
    );
    store.put_html_showing(
        "http://a.test/zoo",
        "City Zoo",
        &[],
        &[
            shows(PANDA, "panda at the enclosure", "feeding time"),
            shows(LION, "lion roaring", ""),
            shows(GONE, "gone giraffe", ""),
            shows(COPY, "lion again", ""),
        ],
    );
    store.put_html_showing(
        "http://a.test/secret",
        "Secret",
        &[],
        &[shows(SECRET, "classified blueprint", "")],
    );
    let mut secret = page(
        "http://a.test/secret",
        "<html><title>Secret</title><p>classified</p></html>",
    );
    secret.robots.noindex = true;
    store.put(&secret, &[]);

    store.put_image(&image_page(PANDA), &png(640, 480, 1));
    let mut lion = image_page(LION);
    lion.robots.noindex = true;
    store.put_image(&lion, &png(800, 600, 2));
    let mut gone = image_page(GONE);
    gone.status = 404;
    store.put_image(&gone, &png(0, 0, 3));
    let mut copy = image_page(COPY);
    copy.duplicate_of = Some(LION.into());
    store.put_image(&copy, &png(800, 600, 2));
    store.put_image(&image_page(SECRET), &png(100, 100, 4));
    store.put_image(&image_page(ALONE), &png(32, 32, 5));
    store
}

#[test]
fn each_served_image_is_one_document_found_by_the_alt_words_of_every_page_showing_it() {
    let store = gallery();
    let summary = build(store.data(), BuildMode::Full).unwrap();
    let images = images(store.data());
    // The noindex lion, the 404 and the copy are left out.
    assert_eq!(
        images.keys().map(String::as_str).collect::<Vec<_>>(),
        vec![ALONE, PANDA, SECRET]
    );
    assert_eq!(summary.images, 3, "{summary}");

    // Alt texts of both pages, the words around it, both titles, its file name.
    assert_eq!(found(store.data(), "alt", "sleepy"), vec![PANDA]);
    assert_eq!(found(store.data(), "alt", "enclosure"), vec![PANDA]);
    assert_eq!(found(store.data(), "context", "maple"), vec![PANDA]);
    assert_eq!(found(store.data(), "page_title", "weekend"), vec![PANDA]);
    assert_eq!(found(store.data(), "page_title", "zoo"), vec![PANDA]);
    assert_eq!(found(store.data(), "file_name", "panda"), vec![PANDA]);
    assert_eq!(found(store.data(), "file_name", "heron"), vec![ALONE]);
    // A noindex page lends an image no words; an image left out is found by none.
    assert!(found(store.data(), "alt", "classified").is_empty());
    assert!(found(store.data(), "alt", "lion").is_empty());

    let fields = ImageFields::new(&image_schema()).unwrap();
    let panda = &images[PANDA];
    // The zoo has two in-links, the blog one: the zoo is the page shown, its alt first.
    assert_eq!(text(panda, fields.page_url), "http://a.test/zoo");
    assert_eq!(text(panda, fields.alt), "panda at the enclosure");
    assert_eq!(text(panda, fields.page_title), "City Zoo");
    assert_eq!(number(panda, fields.pages), 2);
    assert_eq!(
        (number(panda, fields.width), number(panda, fields.height)),
        (640, 480)
    );
    assert_eq!(text(panda, fields.format), "png");
    assert_eq!(number(panda, fields.bytes), 640 * 480 / 4);
    assert_eq!(number(panda, fields.content_hash), 1);
    assert_eq!(number(panda, fields.thumbnail), 1);
    assert_eq!(number(panda, fields.jpeg_quality), 0);
    assert_eq!(number(panda, fields.fetched_at), 1_700_000_000_000);
    let alone = &images[ALONE];
    assert_eq!(text(alone, fields.page_url), "");
    assert_eq!(number(alone, fields.pages), 0);
}

#[test]
fn an_incremental_build_after_a_new_image_arrives_rebuilds_the_image_index_in_place() {
    let store = gallery();
    let first = build(store.data(), BuildMode::Full).unwrap();
    assert_eq!(found(store.data(), "alt", "otter"), Vec::<String>::new());

    const OTTER: &str = "http://img.test/otter.png";
    store.put_html_showing(
        "http://a.test/river",
        "River walk",
        &[],
        &[shows(OTTER, "otter on a rock", ""), shows(PANDA, "", "")],
    );
    store.put_image(&image_page(OTTER), &png(300, 200, 6));
    // The heron is fetched again and now asks for noindex.
    let mut heron = image_page(ALONE);
    heron.robots.noindex = true;
    store.put_image(&heron, &png(32, 32, 5));
    let second = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(second.generation, first.generation, "updated in place");
    assert_eq!(found(store.data(), "alt", "otter"), vec![OTTER]);
    let images = images(store.data());
    assert_eq!(
        images.keys().map(String::as_str).collect::<Vec<_>>(),
        vec![OTTER, PANDA, SECRET]
    );
    let fields = ImageFields::new(&image_schema()).unwrap();
    assert_eq!(number(&images[PANDA], fields.pages), 3);
    // Rebuilt whole: its old documents deleted with its old segments, no copy left.
    let index = image_index(store.data());
    assert_eq!(index.searchable_segment_ids().unwrap().len(), 1);
    assert_eq!(index.reader().unwrap().searcher().num_docs(), 3);
}

#[test]
fn a_generation_without_an_images_dir_opens_for_its_pages_and_gets_one_at_the_next_build() {
    let store = gallery();
    build(store.data(), BuildMode::Full).unwrap();
    // As a generation written before image indexes.
    std::fs::remove_dir_all(images_dir_of(store.data())).unwrap();
    let current = index_format::open_current(store.data()).unwrap().unwrap();
    let pages = current.index.reader().unwrap().searcher().num_docs();
    assert_eq!(pages, 3, "home, blog and zoo (the secret is noindex)");

    let summary = build(store.data(), BuildMode::Incremental).unwrap();
    assert_eq!(summary.indexed, 0, "no page changed: {summary}");
    assert_eq!(summary.images, 3, "{summary}");
    assert_eq!(found(store.data(), "alt", "sleepy"), vec![PANDA]);
}

#[test]
fn a_partitioned_build_indexes_each_partitions_images_with_words_from_every_partition() {
    let sharded = tempfile::tempdir().unwrap();
    let partitions = Partitions::new(3).unwrap();
    let stores: Vec<TestStore> = partitions
        .all()
        .map(|p| TestStore::at(&p.data_dir(sharded.path())))
        .collect();
    let owner = |host: &str| partitions.of_host(host).get() as usize;
    let (pages, image_shard) = (owner("a.test"), owner("img.test"));
    assert_ne!(pages, image_shard, "the test needs two partitions");
    stores[pages].put_html_showing(
        "http://a.test/",
        "Harbour",
        &[],
        &[shows(PANDA, "red panda in the harbour", "")],
    );
    stores[image_shard].put_image(&image_page(PANDA), &png(64, 64, 1));
    let summary = build(sharded.path(), BuildMode::Full).unwrap();
    assert_eq!(summary.images, 1, "{summary}");
    let shard = |i: usize| partitions.all().nth(i).unwrap().data_dir(sharded.path());
    assert_eq!(found(&shard(image_shard), "alt", "harbour"), vec![PANDA]);
    let fields = ImageFields::new(&image_schema()).unwrap();
    assert_eq!(
        text(&images(&shard(image_shard))[PANDA], fields.page_url),
        "http://a.test/"
    );
    assert!(images(&shard(pages)).is_empty());
}

/// `cargo test -p indexer --release --lib fifty_thousand -- --ignored --nocapture`: 5,000
/// pages each showing 10 of 50,000 images (and 5 of them shown on every page of a section),
/// the image index's part of a full build timed apart.
#[test]
#[ignore = "a measurement: prints how long 50,000 images take to index"]
fn fifty_thousand_images_are_indexed_and_the_time_printed() {
    use crate::images::{ImageInputs, Showings, write_images};
    use crate::source::Source;
    use crate::testutil::TestGraph;
    use shared::docplan::{DocPlan, PageMeta};
    use std::time::Instant;

    let store = TestStore::new();
    let image = |i: usize| format!("http://img.test/set{}/photo-{i}.jpg", i % 100);
    for p in 0..5_000usize {
        let refs: Vec<_> = (0..10)
            .map(|k| {
                let i = (p * 10 + k) % 50_000;
                shows(
                    &image(i),
                    &format!("photo {i} of the {k} series"),
                    "words around it",
                )
            })
            .chain((0..5).map(|k| shows(&image(k), "the common banner", "")))
            .collect();
        let links = [link(&format!("http://a.test/p{}", (p * 7) % 5_000), "next")];
        store.put_html_showing(
            &format!("http://a.test/p{p}"),
            "A gallery page",
            &links,
            &refs,
        );
    }
    for i in 0..50_000 {
        store.put_image(&image_page(&image(i)), &png(640, 480, i as u64));
    }
    let source = Source::open(store.data()).unwrap();
    let metas: Vec<PageMeta> = source
        .pages()
        .map(|p| PageMeta::from(&p.unwrap()))
        .collect();
    let plan = DocPlan::new(metas);
    let graph = TestGraph::build(&plan, source.outlinks());
    let started = Instant::now();
    let sources = [&source];
    let showings = Showings::collect(&sources, &plan, &graph.graph).unwrap();
    let inverted = started.elapsed();
    let generation = tempfile::tempdir().unwrap();
    let inputs = ImageInputs {
        sources: &sources,
        showings: &showings,
        plan: &plan,
    };
    let indexed = write_images(generation.path(), true, 0, inputs).unwrap();
    let total = started.elapsed();
    assert_eq!(indexed, 50_000);
    println!(
        "{indexed} images shown {} times on {} pages: inverted in {inverted:.2?}, indexed in {total:.2?} in all",
        5_000 * 15,
        showings.num_pages()
    );
}
