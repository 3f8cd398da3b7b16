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
