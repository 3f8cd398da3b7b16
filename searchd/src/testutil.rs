//! Test fixtures: a real tantivy index with the indexer's schema, laid out as a generation of
//! a data directory (`DATA/index/gen-NNNNNN` and `CURRENT`), written with tantivy directly.

use std::path::Path;

use indexer::IndexFields;
use tantivy::{Index, TantivyDocument};

/// One document of a test index.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub url: &'static str,
    pub title: &'static str,
    pub headings: &'static str,
    pub body: &'static str,
    pub description: &'static str,
    pub anchor: &'static str,
    pub inlinks: u64,
    pub nosnippet: bool,
}

impl Doc {
    pub fn new(url: &'static str, title: &'static str, body: &'static str) -> Self {
        Doc {
            url,
            title,
            body,
            ..Doc::default()
        }
    }
}

fn to_document(doc: &Doc, fields: &IndexFields) -> TantivyDocument {
    let url = url::Url::parse(doc.url).expect("test URL");
    let mut out = TantivyDocument::default();
    out.add_text(fields.url, doc.url);
    out.add_text(fields.url_text, doc.url.replace(['/', ':', '.', '-'], " "));
    out.add_text(fields.host, url.host_str().unwrap_or_default());
    out.add_u64(fields.url_depth, indexer::url_depth(url.path()));
    out.add_text(fields.title, doc.title);
    out.add_text(fields.headings, doc.headings);
    out.add_text(fields.body, doc.body);
    out.add_text(fields.title_exact, doc.title);
    out.add_text(fields.headings_exact, doc.headings);
    out.add_text(fields.body_exact, doc.body);
    out.add_text(fields.description, doc.description);
    out.add_text(fields.anchor, doc.anchor);
    out.add_u64(fields.inlinks, doc.inlinks);
    out.add_u64(fields.rank_level, 8);
    out.add_u64(fields.fetched_at, 1_700_000_000_000);
    out.add_u64(fields.nosnippet, u64::from(doc.nosnippet));
    out.add_u64(
        fields.simhash,
        shared::simhash::simhash(doc.body).unwrap_or(0),
    );
    out
}

/// Writes generation `number` of `data` holding `docs`, and points `CURRENT` at it.
pub fn write_generation(data: &Path, number: u32, docs: &[Doc]) -> Index {
    let name = format!("gen-{number:06}");
    let dir = data.join("index").join(&name);
    std::fs::create_dir_all(&dir).expect("generation dir");
    let index = Index::create_in_dir(&dir, indexer::schema()).expect("index");
    indexer::tokenize::register(&index);
    add(&index, docs);
    let current = indexer::current_generation_marker(data);
    let tmp = current.with_extension("tmp");
    std::fs::write(&tmp, format!("{name}\n")).expect("CURRENT");
    std::fs::rename(&tmp, &current).expect("CURRENT switch");
    index
}

/// Adds `docs` to `index` in one commit.
pub fn add(index: &Index, docs: &[Doc]) {
    let fields = IndexFields::new(&index.schema()).expect("fields");
    let mut writer = index.writer(15_000_000).expect("writer");
    for doc in docs {
        writer.add_document(to_document(doc, &fields)).expect("add");
    }
    writer.commit().expect("commit");
}

/// A data directory with one generation of `docs`.
pub fn data_with(docs: &[Doc]) -> tempfile::TempDir {
    let data = tempfile::tempdir().expect("tempdir");
    write_generation(data.path(), 1, docs);
    data
}

/// The sample documents most tests search.
pub fn shore() -> Vec<Doc> {
    vec![
        Doc {
            description: "All about the great blue heron.",
            headings: "Herons of the estuary",
            inlinks: 5,
            ..Doc::new(
                "http://birds.test/heron",
                "Great blue heron",
                "The great blue heron stalks the tide pools at dawn. Herons nest in colonies.",
            )
        },
        Doc {
            anchor: "oystercatcher",
            ..Doc::new(
                "http://birds.test/oystercatcher",
                "Black oystercatcher",
                "Oystercatchers pry mussels off the rocks at low tide.",
            )
        },
        Doc {
            description: "Tide tables for the bay.",
            ..Doc::new(
                "http://tides.test/tables",
                "Tide tables",
                "Low tide and high tide times, with heron sightings noted in the margin.",
            )
        },
        Doc {
            nosnippet: true,
            ..Doc::new(
                "http://www.tides.test/private",
                "Private log <script>alert(1)</script>",
                "A private heron log that asks for no snippet.",
            )
        },
        Doc {
            description: "Rust's growable array.",
            ..Doc::new(
                "http://docs.test/std/vec/struct.Vec.html",
                "Vec in std::vec",
                "A contiguous growable array type, written as Vec<T>. See std::vec::Vec::new.",
            )
        },
    ]
}
