//! Names of the index fields: the indexer writes them, searchd reads them.

/// The page's canonical URL (stored, indexed as one token for exact lookups).
pub const URL: &str = "url";
/// The URL split into words, searchable.
pub const URL_TEXT: &str = "url_text";
/// The host name, for `site:` queries.
pub const HOST: &str = "host";
/// What the document was made from (`html`, `pdf`: `shared::ContentKind::name`), one token:
/// results say a PDF is one.
pub const KIND: &str = "kind";
/// The `<title>`.
pub const TITLE: &str = "title";
/// Headings `h1`-`h3`.
pub const HEADINGS: &str = "headings";
/// Visible body text, boilerplate left out (searchable, not stored).
pub const BODY: &str = "body";
/// The lead: the body's first words (searchable, not stored), where a page says what it is
/// about.
pub const LEAD: &str = "lead";
/// The page's sections, each its heading (or definition term) and first words, apart from
/// one another (searchable, not stored, no length norm): a long reference page matches here
/// only where one section holds the query's words.
pub const SECTIONS: &str = "sections";
/// The start of the body text, stored (not searchable): what snippets are cut from.
pub const BODY_START: &str = "body_start";
/// The title, lowercased but not stemmed: exact word forms score above stemmed ones.
pub const TITLE_EXACT: &str = "title_exact";
/// The headings, not stemmed.
pub const HEADINGS_EXACT: &str = "headings_exact";
/// The body text, not stemmed.
pub const BODY_EXACT: &str = "body_exact";
/// `<meta name="description">`.
pub const DESCRIPTION: &str = "description";
/// Anchor text of links pointing here from other pages.
pub const ANCHOR: &str = "anchor";
/// In-link count from distinct pages (fast field).
pub const INLINKS: &str = "inlinks";
/// The URLs of the other pages folded into a document (copies of its content, pages naming
/// it as their `rel=canonical`): one token each, so `/explain` can say where a page went.
pub const COPIES: &str = "copies";
/// Those of the in-links that come from pages of another host.
pub const EXTERNAL_INLINKS: &str = "external_inlinks";
/// Path segments of the URL (`/` is 0, `/a/b.html` is 2; fast field): shallower pages get a
/// small prior.
pub const URL_DEPTH: &str = "url_depth";
/// PageRank level: `round(8 * log2(1 + rank * pages))`, 8 for an average page (fast field).
pub const RANK_LEVEL: &str = "rank_level";
/// Share of the body text inside `<pre>` code listings, in percent (fast field).
pub const CODE_PERCENT: &str = "code_percent";
/// Hash of the page's name, its last path segment or the folder of an index page, 0 for a
/// site root (fast field): mirrors and versions of one page share it.
pub const PAGE_NAME: &str = "page_name";
/// Words of the page's own content: inside `<main>`/`<article>` when it has one, else the
/// body text (fast field).
pub const BODY_WORDS: &str = "body_words";
/// Fetch time, ms since the Unix epoch (fast field).
pub const FETCHED_AT: &str = "fetched_at";
/// Simhash of the body text (fast field; 0 when the text is too short to have one): results
/// that are near-copies of a better one are folded under it.
pub const SIMHASH: &str = "simhash";
/// Whether a snippet may be shown (0/1, fast field).
pub const NOSNIPPET: &str = "nosnippet";
/// The language of the document's text: a code of [`crate::language::LANGUAGES`] (`en`,
/// `fr`), or `und` when it could not be told. One token, stored and fast: `lang:` queries and
/// the language facet.
pub const LANG: &str = "lang";
/// Why the document has its language, in a few words (`/explain`), stored.
pub const LANG_REASON: &str = "lang_reason";
/// The stemming its stemmed fields were cut with ([`crate::language::Stemming::name`]): a
/// query is matched against each stemming's documents with that stemming's stems.
pub const STEMMER: &str = "stemmer";
/// A hash naming the document's set of translations (its `<link rel="alternate" hreflang>`
/// pages and itself), 0 when it names none: the translations of one page fold into one
/// result. Fast and stored.
pub const TRANSLATIONS: &str = "translations";
/// The page's date, seconds since the Unix epoch (`i64`, indexed, fast and stored): its
/// publication, else its last modification (as the crawler read them, `shared::dates`); absent
/// when it has neither. `sort=date`, `after:`/`before:` and the year facet read it.
pub const DATE: &str = "date";
/// When the page was published, seconds since the Unix epoch (`i64`, stored), if known.
pub const PUBLISHED: &str = "published";
/// When the page was last modified, seconds since the Unix epoch (`i64`, stored), if known.
pub const MODIFIED: &str = "modified";
/// Where its dates were read (`published: JSON-LD; modified: Last-Modified header`), stored
/// for `/explain`.
pub const DATE_SOURCES: &str = "date_sources";
