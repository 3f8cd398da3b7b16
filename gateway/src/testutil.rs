//! Test fixtures: a real tantivy index with the indexer's schema, laid out as a generation of
//! a data directory (`DATA/index/gen-NNNNNN` and `CURRENT`), written with tantivy directly.

use std::path::Path;

use index_format::IndexFields;
use indexer::{Analyzers, DocInput, Inbound};
use shared::dates::{DateSource, PageDate, PageDates};
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
    /// Those of `inlinks` from another host.
    pub external_inlinks: u64,
    pub nosnippet: bool,
    /// A code listing after the body.
    pub code: &'static str,
    /// Sections after the body: each an `h3` heading and a paragraph.
    pub sections: &'static [(&'static str, &'static str)],
    /// When it was published (`YYYY-MM-DD`), as its JSON-LD would say.
    pub published: Option<&'static str>,
    /// Made from a PDF's text (else an HTML page).
    pub pdf: bool,
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

/// The document the indexer makes of `doc` rendered as a page: its title, its headings as an
/// `h2`, its body as a paragraph, its sections and its code as a `<pre>` listing.
fn to_document(doc: &Doc, fields: &IndexFields) -> TantivyDocument {
    let escape = |text: &str| text.replace('&', "&amp;").replace('<', "&lt;");
    let mut html = format!(
        "<html><head><title>{}</title></head><body>",
        escape(doc.title)
    );
    if !doc.headings.is_empty() {
        html += &format!("<h2>{}</h2>", escape(doc.headings));
    }
    html += &format!("<p>{}</p>", escape(doc.body));
    for (heading, text) in doc.sections {
        html += &format!("<h3>{}</h3><p>{}</p>", escape(heading), escape(text));
    }
    if !doc.code.is_empty() {
        html += &format!("<pre>{}</pre>", escape(doc.code));
    }
    let input = DocInput {
        url: doc.url.to_string(),
        kind: if doc.pdf {
            shared::ContentKind::Pdf
        } else {
            shared::ContentKind::Html
        },
        title: doc.title.to_string(),
        description: doc.description.to_string(),
        html,
        rendered: false,
        fetched_at: 1_700_000_000_000,
        nosnippet: doc.nosnippet,
        inbound: Inbound {
            count: doc.inlinks,
            external: doc.external_inlinks,
            anchors: [doc.anchor]
                .into_iter()
                .filter(|a| !a.is_empty())
                .map(str::to_string)
                .collect(),
            rank_level: 8,
        },
        copies: Vec::new(),
        template: Default::default(),
        content_language: None,
        dates: PageDates {
            published: doc.published.map(|day| PageDate {
                unix_seconds: shared::dates::iso_date(day).expect("a YYYY-MM-DD date"),
                source: DateSource::JsonLd,
            }),
            modified: None,
        },
    };
    input.to_document(fields, &mut Analyzers::default())
}

/// Writes generation `number` of `data` holding `docs`, and points `CURRENT` at it.
pub fn write_generation(data: &Path, number: u32, docs: &[Doc]) -> Index {
    let name = format!("gen-{number:06}");
    let dir = data.join("index").join(&name);
    std::fs::create_dir_all(&dir).expect("generation dir");
    let index = Index::create_in_dir(&dir, index_format::schema()).expect("index");
    index_format::tokenize::register(&index);
    add(&index, docs);
    indexer::write_completions(&dir, &index).expect("completions");
    let current = index_format::current_generation_marker(data);
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
