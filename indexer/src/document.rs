//! `DocInput`: everything one document is made of, its fingerprint, and the tantivy document.
//!
//! The [`fingerprint`] is an xxh3 hash of every input, taken before the body is read: the
//! page's store change number (every write of a page gets a new one, so it stands for the
//! URL, title, description, HTML, fetch time and directives, and for what rendering it found,
//! written in the same batch), its in-link counts, level and anchors, its copies, its host's
//! template ([`HostTemplate::digest`]) and [`FORMAT_VERSION`]. Equal fingerprints mean equal
//! documents, so an incremental build skips an unchanged page without decompressing or
//! parsing it; a change in any input, in-links included, re-indexes it.

use std::sync::Arc;

use shared::dates::PageDates;
use shared::record::{PageRecord, Record};
use shared::{CanonicalUrl, ContentKind};
use tantivy::TantivyDocument;
use xxhash_rust::xxh3::Xxh3;

use crate::language::{self, Hints};
use crate::linkgraph::Inbound;
use crate::stemmed::Analyzers;
use crate::text::{self, Declared, HostTemplate};
use index_format::language::Stemming;
use index_format::url_fields::{page_name_key, url_depth};
use index_format::{BODY_START_BYTES, FORMAT_VERSION, IndexFields};

/// The hash of everything a document is made of, without its body: see the module docs. A
/// page stored before change numbers existed (change 0) is identified by its whole record.
pub fn fingerprint(
    page: &PageRecord,
    inbound: &Inbound,
    copies: &[String],
    template: &HostTemplate,
) -> u64 {
    let mut h = Xxh3::new();
    let mut field = |bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(&FORMAT_VERSION.to_le_bytes());
    field(page.url.as_bytes());
    if page.change > 0 {
        field(&page.change.to_le_bytes());
    } else {
        field(&page.encode());
    }
    field(&inbound.count.to_le_bytes());
    field(&inbound.external.to_le_bytes());
    field(&inbound.rank_level.to_le_bytes());
    for anchor in &inbound.anchors {
        field(anchor.as_bytes());
    }
    for copy in copies {
        field(copy.as_bytes());
    }
    field(&template.digest().to_le_bytes());
    h.digest()
}

/// What one document is made of.
#[derive(Clone, Debug)]
pub struct DocInput {
    /// The URL it is filed under.
    pub url: String,
    /// What it was made from: an HTML page, or a PDF's text.
    pub kind: ContentKind,
    /// `<title>` as the crawler stored it.
    pub title: String,
    /// `<meta name="description">`.
    pub description: String,
    /// The page's HTML (a PDF's text, as paragraphs: `text_as_html`; the document after
    /// its scripts ran, when it was rendered).
    pub html: String,
    /// `html` is the document after its scripts ran ([`DocHtml::Rendered`]): its own title
    /// wins over the one the crawler stored from the static page.
    pub rendered: bool,
    /// Fetch time, ms since the Unix epoch.
    pub fetched_at: u64,
    /// No snippet may be shown.
    pub nosnippet: bool,
    /// Its in-links.
    pub inbound: Inbound,
    /// The URLs of the other pages folded into it.
    pub copies: Vec<String>,
    /// The blocks its host repeats on most pages, left out of its text.
    pub template: Arc<HostTemplate>,
    /// The `Content-Language` header it was served with, if any.
    pub content_language: Option<String>,
    /// When it was published and last modified, as the crawler read them.
    pub dates: PageDates,
}

/// What a document's text is read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocHtml {
    /// The stored body, decompressed: the static page (a PDF's text).
    Static(String),
    /// The document after the page's scripts ran, from its rendered record: text, title and
    /// headings come from it; the static body stays the cached copy.
    Rendered(String),
}

impl DocInput {
    /// The document of a stored page, read from `html`.
    pub fn new(
        page: &PageRecord,
        html: DocHtml,
        inbound: Inbound,
        copies: Vec<String>,
        template: Arc<HostTemplate>,
    ) -> Self {
        let (html, rendered) = match (html, page.kind) {
            (DocHtml::Rendered(html), _) => (html, true),
            (DocHtml::Static(text), ContentKind::Pdf) => (text_as_html(&text), false),
            (DocHtml::Static(html), ContentKind::Html | ContentKind::Image) => (html, false),
        };
        Self {
            url: page.url.clone(),
            kind: page.kind,
            title: page.title.clone(),
            description: page.description.clone(),
            html,
            rendered,
            fetched_at: page.fetched_at_ms,
            nosnippet: page.robots.nosnippet,
            inbound,
            copies,
            template,
            content_language: page
                .headers
                .iter()
                .find(|(name, _)| name == "content-language")
                .map(|(_, value)| value.clone()),
            dates: page.page_dates(),
        }
    }

    /// About what its tantivy document holds, in bytes: three times the texts it is made
    /// from. The body is kept plain and stemmed, and a stemmed field keeps each token's text,
    /// offsets and position beside the text; the markup the HTML loses makes up for the rest.
    pub fn document_bytes(&self) -> usize {
        let texts = [&self.url, &self.title, &self.description, &self.html]
            .into_iter()
            .chain(&self.inbound.anchors)
            .chain(&self.copies)
            .map(String::len)
            .sum::<usize>();
        3 * texts
    }

    /// Parses the HTML (the one parse of this page) and builds the tantivy document, its
    /// stemmed fields cut by `analyzers` (the parser thread's own) when not in English.
    pub fn to_document(&self, fields: &IndexFields, analyzers: &mut Analyzers) -> TantivyDocument {
        let text = text::extract_with(&self.html, &self.template);
        let mut doc = TantivyDocument::new();
        doc.add_text(fields.url, &self.url);
        doc.add_text(fields.kind, self.kind.name());
        for copy in &self.copies {
            doc.add_text(fields.copies, copy);
        }
        if let Ok(url) = CanonicalUrl::parse(&self.url) {
            doc.add_text(fields.host, url.host());
            doc.add_u64(fields.url_depth, url_depth(url.as_url().path()));
            doc.add_u64(fields.page_name, page_name_key(url.as_url()));
        }
        let (first, second) = if self.rendered {
            (text.title.as_str(), self.title.as_str())
        } else {
            (self.title.as_str(), text.title.as_str())
        };
        let title = [
            first,
            second,
            text.headings.first().map_or("", String::as_str),
        ]
        .into_iter()
        .find(|t| !t.is_empty())
        .unwrap_or_default();
        let page_url = url::Url::parse(&self.url).ok();
        let own_hreflang = page_url
            .as_ref()
            .and_then(|url| own_hreflang(&text.declared, url));
        let language = language::decide(
            title,
            &text.body,
            &Hints {
                declared: Some(&text.declared),
                header: self.content_language.as_deref(),
                own_hreflang,
            },
        );
        let stemming = Stemming::of_language(language.code);
        doc.add_text(fields.lang, language.code);
        doc.add_text(fields.lang_reason, language.reason());
        doc.add_text(fields.stemmer, stemming.name());
        let translations = page_url.map_or(0, |url| translations_key(&text.declared, &url));
        doc.add_u64(fields.translations, translations);
        let mut stemmed = analyzers.fields(stemming);
        stemmed.add(&mut doc, fields.url_text, &url_words(&self.url));
        stemmed.add(&mut doc, fields.title, title);
        doc.add_text(fields.title_exact, title);
        for heading in &text.headings {
            stemmed.add(&mut doc, fields.headings, heading);
            doc.add_text(fields.headings_exact, heading);
        }
        stemmed.add(&mut doc, fields.body, &text.body);
        let snippet_source = text.snippet_source(BODY_START_BYTES);
        doc.add_text(fields.body_start, &snippet_source);
        stemmed.add(&mut doc, fields.lead, lead(&snippet_source));
        stemmed.add(
            &mut doc,
            fields.sections,
            &sections(&text.body, &text.section_starts),
        );
        doc.add_text(fields.body_exact, &text.body);
        doc.add_u64(
            fields.simhash,
            shared::simhash::simhash(&text.body).unwrap_or(0),
        );
        stemmed.add(&mut doc, fields.description, &self.description);
        for anchor in &self.inbound.anchors {
            stemmed.add(&mut doc, fields.anchor, anchor);
        }
        doc.add_u64(fields.inlinks, self.inbound.count);
        doc.add_u64(fields.external_inlinks, self.inbound.external);
        doc.add_u64(fields.rank_level, self.inbound.rank_level);
        doc.add_u64(fields.code_percent, text.code_percent());
        doc.add_u64(fields.body_words, text.content_words() as u64);
        doc.add_u64(fields.fetched_at, self.fetched_at);
        doc.add_u64(fields.nosnippet, u64::from(self.nosnippet));
        self.add_dates(&mut doc, fields);
        doc
    }

    /// The page's date (`date`: published, else modified), each of its dates, and where
    /// they were read.
    fn add_dates(&self, doc: &mut TantivyDocument, fields: &IndexFields) {
        if let Some(date) = self.dates.date() {
            doc.add_i64(fields.date, date.unix_seconds);
        }
        let mut sources = Vec::new();
        for (field, name, date) in [
            (fields.published, "published", self.dates.published),
            (fields.modified, "modified", self.dates.modified),
        ] {
            if let Some(date) = date {
                doc.add_i64(field, date.unix_seconds);
                sources.push(format!("{name}: {}", date.source.describe()));
            }
        }
        if !sources.is_empty() {
            doc.add_text(fields.date_sources, sources.join("; "));
        }
    }
}

/// The `hreflang` of the page's alternate that names the page itself, if one does.
fn own_hreflang<'d>(declared: &'d Declared, page: &url::Url) -> Option<&'d str> {
    declared
        .alternates
        .iter()
        .find(|(_, href)| {
            CanonicalUrl::join(page, href).is_ok_and(|target| target.as_str() == page.as_str())
        })
        .map(|(lang, _)| lang.as_str())
}

/// The key of the page's set of translations: a hash of the canonical URLs its
/// `<link rel="alternate" hreflang>` name, itself included, sorted, so every page of the set
/// has the same key; 0 when it names none.
fn translations_key(declared: &Declared, page: &url::Url) -> u64 {
    let mut urls: Vec<String> = declared
        .alternates
        .iter()
        .filter_map(|(_, href)| CanonicalUrl::join(page, href).ok())
        .map(String::from)
        .collect();
    if urls.is_empty() {
        return 0;
    }
    urls.push(page.as_str().to_string());
    urls.sort_unstable();
    urls.dedup();
    if urls.len() < 2 {
        return 0;
    }
    let mut h = Xxh3::new();
    for url in &urls {
        h.update(&(url.len() as u64).to_le_bytes());
        h.update(url.as_bytes());
    }
    h.digest().max(1)
}

/// Plain text (a PDF's) as the HTML the text extractor reads: escaped, each blank-line
/// separated block a paragraph, so snippets and sections see its breaks.
pub fn text_as_html(text: &str) -> String {
    let mut html = String::with_capacity(text.len() + text.len() / 8);
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        html.push_str("<p>");
        for c in block.chars() {
            match c {
                '&' => html.push_str("&amp;"),
                '<' => html.push_str("&lt;"),
                '>' => html.push_str("&gt;"),
                c => html.push(c),
            }
        }
        html.push_str("</p>\n");
    }
    html
}

/// Words of the body that make its lead.
pub const LEAD_WORDS: usize = 40;

/// The lead of a body text: its first [`LEAD_WORDS`] words.
fn lead(body: &str) -> &str {
    lead_of(body, LEAD_WORDS)
}

/// The first `words` words of `text` (extraction separates words by single spaces).
fn lead_of(text: &str, words: usize) -> &str {
    match text.match_indices(' ').nth(words.saturating_sub(1)) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// Words of a section kept in the sections field: its heading and the start of its text.
pub const SECTION_WORDS: usize = 30;
/// Most bytes of the sections field.
pub const MAX_SECTIONS_BYTES: usize = 64 * 1024;

/// The sections of `body` starting at `starts`, each its first [`SECTION_WORDS`] words (up
/// to the next section), kept apart by [`index_format::tokenize::SECTION_BREAK`].
fn sections(body: &str, starts: &[usize]) -> String {
    let mut out = String::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(body.len());
        let Some(section) = body.get(start..end) else {
            continue;
        };
        let section = lead_of(section.trim_start(), SECTION_WORDS).trim_end();
        if section.is_empty() {
            continue;
        }
        if out.len() + section.len() + 2 > MAX_SECTIONS_BYTES {
            break;
        }
        if !out.is_empty() {
            out.push(index_format::tokenize::SECTION_BREAK);
        }
        out.push_str(section);
    }
    out
}

/// The URL as words, scheme left out, camel-case names also split:
/// `https://doc.rust-lang.org/std/struct.HashMap.html` ->
/// `doc rust lang org std struct HashMap Hash Map html`.
pub fn url_words(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut out = String::with_capacity(rest.len() * 2);
    for word in rest
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        push_word(&mut out, word);
        let parts = camel_parts(word);
        if parts.len() > 1 {
            parts.into_iter().for_each(|part| push_word(&mut out, part));
        }
    }
    out
}

fn push_word(out: &mut String, word: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(word);
}

/// `HashMap` -> `Hash`, `Map`; `IOError` -> `IO`, `Error`; `snake` -> `snake`.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        if c.is_uppercase()
            && (prev.is_lowercase() || prev.is_numeric() || (prev.is_uppercase() && next_lower))
        {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_their_first_words_kept_apart() {
        let body = "intro Options a b c d Notes e f";
        let starts = [6, 22, body.len()];
        let sep = index_format::tokenize::SECTION_BREAK;
        assert_eq!(
            sections(body, &starts),
            format!("Options a b c d{sep}Notes e f")
        );
        let long: String = (0..100).map(|i| format!("w{i} ")).collect();
        let cut = sections(&long, &[0]);
        assert_eq!(cut.split(' ').count(), SECTION_WORDS);
        assert_eq!(
            sections("abc", &[7]),
            "",
            "a start past the end is no section"
        );
    }

    #[test]
    fn a_pdfs_text_is_escaped_paragraphs() {
        assert_eq!(
            text_as_html("Tides <high> & low\nat noon\n\n\n\nPage 2"),
            "<p>Tides &lt;high&gt; &amp; low\nat noon</p>\n<p>Page 2</p>\n"
        );
    }

    #[test]
    fn the_lead_is_the_first_words() {
        let body: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        let body = body.join(" ");
        let first = lead(&body);
        assert!(
            first.starts_with("w0 w1 ") && first.ends_with(" w39"),
            "{first}"
        );
        assert_eq!(first.split(' ').count(), LEAD_WORDS);
        assert_eq!(lead("a short page"), "a short page");
        assert_eq!(lead(""), "");
    }

    #[test]
    fn url_words_split_paths_and_camel_case() {
        assert_eq!(
            url_words("https://doc.rust-lang.org/std/collections/struct.HashMap.html"),
            "doc rust lang org std collections struct HashMap Hash Map html"
        );
        assert_eq!(
            url_words("http://a.test/IOError/x"),
            "a test IOError IO Error x"
        );
        assert_eq!(url_words("http://a.test/"), "a test");
    }

    #[test]
    fn the_fingerprint_sees_every_input() {
        let page = PageRecord {
            url: "http://a.test/".into(),
            title: "T".into(),
            change: 7,
            ..PageRecord::default()
        };
        let inbound = Inbound {
            count: 1,
            external: 0,
            anchors: vec!["home".into()],
            rank_level: 8,
        };
        let none = HostTemplate::default();
        let print = fingerprint(&page, &inbound, &[], &none);
        let templated = HostTemplate::new(vec![1, 2]);
        assert_ne!(
            fingerprint(&page, &inbound, &[], &templated),
            print,
            "a host template"
        );
        assert_eq!(
            print,
            fingerprint(&page.clone(), &inbound.clone(), &[], &none),
            "stable"
        );

        let rewritten = PageRecord {
            change: 8,
            ..page.clone()
        };
        assert_ne!(
            fingerprint(&rewritten, &inbound, &[], &none),
            print,
            "a new write"
        );
        let copies = ["http://a.test/copy".to_string()];
        assert_ne!(
            fingerprint(&page, &inbound, &copies, &none),
            print,
            "a copy"
        );
        let mut more_links = inbound.clone();
        more_links.count = 2;
        let mut other_anchor = inbound.clone();
        other_anchor.anchors = vec!["start".into()];
        let mut ranked_up = inbound.clone();
        ranked_up.rank_level = 9;
        let mut cited_from_elsewhere = inbound.clone();
        cited_from_elsewhere.external = 1;
        for changed in [more_links, other_anchor, ranked_up, cited_from_elsewhere] {
            assert_ne!(
                fingerprint(&page, &changed, &[], &none),
                print,
                "{changed:?}"
            );
        }

        // A page stored before change numbers: any field of the record counts.
        let old = PageRecord {
            change: 0,
            ..page.clone()
        };
        let old_print = fingerprint(&old, &inbound, &[], &none);
        let retitled = PageRecord {
            title: "U".into(),
            ..old.clone()
        };
        assert_ne!(fingerprint(&retitled, &inbound, &[], &none), old_print);
        let mut no_snippet = old.clone();
        no_snippet.robots.nosnippet = true;
        assert_ne!(fingerprint(&no_snippet, &inbound, &[], &none), old_print);
    }
}
