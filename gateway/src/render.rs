//! The HTML pages, as maud templates.
//!
//! **Invariant:** every string from the web or from the user goes through maud's escaping.
//! `PreEscaped` appears exactly once, for the constant style sheet below; snippets are plain
//! text plus ranges and are marked up here, a cached page travels inside an escaped `srcdoc`
//! attribute. Web text shown as text also goes through [`shown`] (no bidirectional
//! overrides or hidden controls, cut to a length) and sits in a `<bdi>`, so a title cannot
//! reorder the URL beside it.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::display::{TITLE_CHARS, URL_CHARS, VALUE_CHARS, shown};
use crate::facets::Facets;
use crate::hit::{Hit, Order, SimilarTo};
use crate::search::SearchResults;
use crate::snippet::Snippet;

const STYLE: &str = "
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1f2328;background:#fff;line-height:1.45}
header{padding:1rem 2rem;border-bottom:1px solid #e5e7eb;display:flex;gap:1.5rem;align-items:center;flex-wrap:wrap}
a.logo{font-weight:700;font-size:1.5rem;color:#0b6e4f;text-decoration:none;letter-spacing:-.02em}
main{padding:1rem 2rem 3rem;max-width:50rem}
form.search{display:flex;gap:.5rem;flex:1;max-width:38rem;min-width:16rem}
form.search input[type=search]{flex:1;font-size:1.05rem;padding:.55rem .8rem;border:1px solid #c9ccd1;border-radius:8px}
form.search input[type=search]:focus{outline:2px solid #0b6e4f;border-color:transparent}
form.search button{font-size:1rem;padding:.55rem 1.1rem;border:0;border-radius:8px;background:#0b6e4f;color:#fff;cursor:pointer}
.home{display:flex;flex-direction:column;align-items:center;margin:16vh auto 0;gap:1.2rem;padding:0 1rem;max-width:40rem}
.home h1{font-size:3.2rem;color:#0b6e4f;margin:0;letter-spacing:-.04em}
.home form.search{width:100%}
.meta{color:#6b7280;font-size:.9rem;margin:.4rem 0 1.4rem}
.help{color:#6b7280;font-size:.85rem}
.help code{background:#f3f4f6;padding:0 .25em;border-radius:3px}
.hit{margin:0 0 1.5rem}
.hit a.title{font-size:1.15rem;color:#1a0dab;text-decoration:none}
.hit a.title:hover{text-decoration:underline}
.hit .kind{font-size:.7rem;font-weight:600;color:#fff;background:#b91c1c;border-radius:3px;padding:0 .3rem;vertical-align:middle}
.hit .url{color:#0b6e4f;font-size:.85rem;word-break:break-all}
.hit .url a{color:#6b7280}
.hit .date{color:#6b7280;font-size:.8rem}
.synonyms,.similar-to{color:#4b5563;font-size:.9rem}
.hit .snippet{margin:.2rem 0 0;color:#374151}
.hit .also,.facets{font-size:.85rem;color:#4b5563}
mark{background:#fff3b0;color:inherit;padding:0 .1em;border-radius:2px}
nav.pages{display:flex;gap:.4rem;margin:2rem 0;flex-wrap:wrap}
nav.pages a,nav.pages span{padding:.3rem .65rem;border-radius:6px;text-decoration:none}
nav.pages a{color:#1a0dab}
nav.pages a:hover{background:#f3f4f6}
nav.pages span.current{background:#0b6e4f;color:#fff}
.notice{padding:1rem 1.2rem;border-radius:8px;background:#f6f8fa;border:1px solid #e5e7eb}
table.facts th{text-align:left;padding:.25rem 2rem .25rem 0;font-weight:600;vertical-align:top}
table.facts td{word-break:break-all}
iframe.cache{width:100%;height:75vh;border:1px solid #e5e7eb;border-radius:8px;margin-top:1rem}
main.wide{max-width:none}
nav.tabs{display:flex;gap:1rem;padding:0 2rem;border-bottom:1px solid #e5e7eb}
nav.tabs a,nav.tabs span{padding:.5rem .2rem;text-decoration:none;color:#6b7280}
nav.tabs span.current{color:#0b6e4f;border-bottom:2px solid #0b6e4f;font-weight:600}
form.filters{display:flex;gap:.8rem;flex-wrap:wrap;align-items:center;font-size:.9rem;margin:.8rem 0}
form.filters input{width:6rem;padding:.2rem .4rem}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:1rem}
.grid figure{margin:0;border:1px solid #e5e7eb;border-radius:8px;padding:.5rem;overflow:hidden}
.grid .frame{height:10rem;display:flex;align-items:center;justify-content:center;background:#f6f8fa}
.grid img{max-width:100%;max-height:10rem;height:auto;width:auto}
.grid figcaption{font-size:.8rem;color:#6b7280;word-break:break-word}
.grid figcaption a{color:#1a0dab}
";

/// A whole page: `title`, the style sheet, and `body`.
pub(crate) fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                title { (title) }
                link rel="search" type="application/opensearchdescription+xml" title="sift" href="/opensearch.xml";
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
}

fn search_form(query: &str, autofocus: bool) -> Markup {
    html! {
        form.search action="/search" method="get" role="search" {
            input type="search" name="q" value=(query) placeholder="Search the crawl"
                aria-label="Search" maxlength="2048" autofocus[autofocus];
            button type="submit" { "Search" }
        }
    }
}

fn header(query: &str) -> Markup {
    html! { header { a.logo href="/" { "sift" } (search_form(query, false)) } }
}

/// The home page: a search box, and how many pages it searches.
pub fn home(docs: Option<u64>) -> Markup {
    layout(
        "sift",
        html! {
            div.home {
                h1 { "sift" }
                (search_form("", true))
                @match docs {
                    Some(docs) => p.meta { (docs) " pages indexed · " a href="/status" { "status" } },
                    None => p.meta { "No index yet: run " code { "indexer build" } ", this page picks it up by itself." },
                }
                (help())
            }
        },
    )
}

fn help() -> Markup {
    html! {
        p.help {
            "All words are required. Also: " code { "\"a phrase\"" } " " code { "-without" } " "
            code { "this OR that" } " " code { "title:word" } " " code { "inurl:word" } " " code { "site:example.com" }
        }
    }
}

fn snippet(snippet: &Snippet) -> Markup {
    html! {
        p.snippet dir="auto" {
            @for (marked, run) in snippet.runs() {
                @if marked { mark { (shown(run, usize::MAX)) } } @else { (shown(run, usize::MAX)) }
            }
        }
    }
}

fn hit(hit: &Hit) -> Markup {
    let title = if hit.title.trim().is_empty() {
        &hit.url
    } else {
        &hit.title
    };
    let lang = Some(hit.lang.as_str()).filter(|lang| *lang != "und");
    html! {
        div.hit lang=[lang] {
            @if hit.kind != "html" {
                span.kind { (hit.kind.to_uppercase()) } " "
            }
            a.title href=(hit.url) { bdi { (shown(title, TITLE_CHARS)) } }
            div.url {
                bdi { (shown(&hit.url, URL_CHARS)) } " · " bdi { (shown(&hit.host, URL_CHARS)) } " · "
                a href={ "/cache?url=" (urlencode(&hit.url)) } { "cached" } " · "
                a.similar href={ "/similar?url=" (urlencode(&hit.url)) } { "similar" }
            }
            @if let Some(day) = hit.published.as_ref().or(hit.modified.as_ref()) {
                div.date {
                    @if hit.published.is_none() { "updated " }
                    time datetime=(day) { (day) }
                }
            }
            @if !hit.snippet.text.is_empty() { (snippet(&hit.snippet)) }
            @if !hit.also_in.is_empty() {
                div.also {
                    "also in: "
                    @for (i, translation) in hit.also_in.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href=(translation.url) hreflang=(translation.lang) lang=(translation.lang) {
                            (translation.lang)
                        }
                    }
                }
            }
        }
    }
}

/// A facet of the results page.
#[derive(Clone, Copy)]
enum Facet {
    Language,
    Kind,
    Site,
    Year,
}

impl Facet {
    const ALL: [Facet; 4] = [Facet::Language, Facet::Kind, Facet::Site, Facet::Year];

    /// Its counts in `facets`.
    fn counts(self, facets: &Facets) -> &[(String, u64)] {
        match self {
            Facet::Language => &facets.lang,
            Facet::Kind => &facets.kind,
            Facet::Site => &facets.site,
            Facet::Year => &facets.year,
        }
    }

    /// What it is called, and its navigation's label.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Facet::Language => ("Language", "Languages"),
            Facet::Kind => ("Kind", "Kinds"),
            Facet::Site => ("Site", "Sites"),
            Facet::Year => ("Year", "Years"),
        }
    }

    /// A value as shown: a language by its name, a kind in capitals.
    fn shown(self, value: &str) -> String {
        match self {
            Facet::Language => index_format::language::language(value)
                .map_or_else(|| value.to_string(), |l| l.name.to_string()),
            Facet::Kind => value.to_uppercase(),
            Facet::Site | Facet::Year => value.to_string(),
        }
    }

    /// The operator that keeps the matches with `value`.
    fn operator(self, value: &str) -> String {
        match self {
            Facet::Language => format!("lang:{value}"),
            Facet::Kind => format!("kind:{value}"),
            Facet::Site => format!("site:{value}"),
            Facet::Year => {
                let next = value.parse::<i64>().map_or(0, |year| year + 1);
                format!("after:{value} before:{next}")
            }
        }
    }
}

/// The facets: each language, kind, site and year of the matches with its count, a link
/// narrowing the query to it (its operator added: the URL holds the filters); a facet is
/// shown when the matches have more than one of its values.
fn facets(results: &SearchResults) -> Markup {
    html! {
        @for facet in Facet::ALL {
            @let counts = facet.counts(&results.facets);
            @let (name, label) = facet.names();
            @if counts.len() > 1 {
                nav.facets aria-label=(label) {
                    (name) ": "
                    @for (i, (value, count)) in counts.iter().enumerate() {
                        @if i > 0 { " · " }
                        @let narrowed = format!("{} {}", results.query, facet.operator(value));
                        a href=(page_link(&narrowed, 1, results.order)) {
                            (shown(&facet.shown(value), URL_CHARS)) " (" (count) ")"
                        }
                    }
                }
            }
        }
    }
}

/// The results page of `query`: page `page`, in `order` (`sort=date` kept in every link).
fn page_link(query: &str, page: usize, order: Order) -> String {
    let sort = match order {
        Order::Relevance => "",
        Order::Date => "&sort=date",
    };
    format!("/search?q={}&page={page}{sort}", urlencode(query))
}

/// Which order the hits are in, and a link to the other.
fn sort_choice(results: &SearchResults) -> Markup {
    let link = |order| page_link(&results.query, 1, order);
    html! {
        span.sort {
            "Sort by "
            @match results.order {
                Order::Relevance => {
                    strong { "relevance" } " · " a href=(link(Order::Date)) { "date" }
                }
                Order::Date => {
                    a href=(link(Order::Relevance)) { "relevance" } " · " strong { "date" }
                }
            }
        }
    }
}

fn pagination(results: &SearchResults) -> Markup {
    let last_page = results.last_page();
    let first = results.page.saturating_sub(4).max(1);
    let last = (first + 9).min(last_page);
    html! {
        @if last_page > 1 {
            nav.pages aria-label="Result pages" {
                @if results.page > 1 {
                    a rel="prev" href=(page_link(&results.query, results.page - 1, results.order)) { "‹ Previous" }
                }
                @for p in first..=last {
                    @if p == results.page { span.current aria-current="page" { (p) } }
                    @else { a href=(page_link(&results.query, p, results.order)) { (p) } }
                }
                @if results.page < last_page {
                    a rel="next" href=(page_link(&results.query, results.page + 1, results.order)) { "Next ›" }
                }
            }
        }
    }
}

/// The kinds of search, shown as a pair of tabs above the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tab {
    /// Pages (`/search`).
    Web,
    /// Images (`/images`).
    Images,
}

/// The Web and Images tabs, `current` marked, each searching `query`.
pub(crate) fn tabs(query: &str, current: Tab) -> Markup {
    let q = urlencode(query);
    let tab = |tab: Tab, name: &str, path: &str| {
        html! {
            @if tab == current { span.current aria-current="page" { (name) } }
            @else { a href={ (path) "?q=" (q) } { (name) } }
        }
    };
    html! {
        nav.tabs aria-label="Search kinds" {
            (tab(Tab::Web, "Web", "/search")) (tab(Tab::Images, "Images", "/images"))
        }
    }
}

/// A page of results, or the gentle "type something" page for an empty query.
pub fn results(results: &SearchResults) -> Markup {
    let title = if let Some(source) = &results.similar_to {
        format!("Pages like {} - sift", shown(named(source), VALUE_CHARS))
    } else if results.nothing_to_search {
        "sift".to_string()
    } else {
        format!("{} - sift", shown(&results.query, VALUE_CHARS))
    };
    layout(
        &title,
        html! {
            (header(&results.query))
            (tabs(&results.query, Tab::Web))
            main {
                @if results.nothing_to_search {
                    div.notice { strong { "Type something to search for." } (help()) }
                } @else {
                    @if let Some(suggestion) = &results.suggestion {
                        p.suggestion {
                            "Did you mean "
                            a href={ "/search?q=" (urlencode(suggestion)) } { strong { (suggestion) } }
                            "?"
                        }
                    }
                    @if !results.synonyms.is_empty() {
                        p.synonyms {
                            "Also searched: "
                            @for (i, expansion) in results.synonyms.iter().enumerate() {
                                @if i > 0 { "; " }
                                (shown(&expansion.with.join(", "), VALUE_CHARS))
                                " for " strong { (shown(&expansion.word, VALUE_CHARS)) }
                            }
                            " (" a href={ "/search?q=" (urlencode(&quoted_words(results))) } { "only the words typed" } ")"
                        }
                    }
                    @if let Some(source) = &results.similar_to {
                        p.similar-to {
                            "Pages like " a href=(source.url) { bdi { (shown(named(source), TITLE_CHARS)) } }
                            ", by the words that say most about it: "
                            em { (shown(&source.words.join(", "), VALUE_CHARS)) }
                        }
                    }
                    @if results.partial {
                        div.notice {
                            "No page has all of " strong { (shown(&results.query, VALUE_CHARS)) }
                            ". These have some of the words."
                        }
                    }
                    @if !results.missing_shards.is_empty() {
                        div.notice.partial-shards {
                            "Some of the index did not answer in time: results may be missing."
                        }
                    }
                    p.meta {
                        (count(results.total)) " in " (format!("{:.1}", results.took_ms)) " ms"
                        @if results.page > 1 { " · page " (results.page) }
                        " · " (sort_choice(results))
                    }
                    (facets(results))
                    @for (i, h) in results.hits.iter().enumerate() {
                        @if !results.partial && !h.all_words && results.hits[..i].iter().all(|h| h.all_words) {
                            div.notice.some-words {
                                "Pages with only some of the words of "
                                strong { (shown(&results.query, VALUE_CHARS)) } ":"
                            }
                        }
                        (hit(h))
                    }
                    @if results.hits.is_empty() {
                        div.notice {
                            @if results.similar_to.is_some() { "No other page shares its words." }
                            @else if results.total == 0 { "No pages match " strong { (shown(&results.query, VALUE_CHARS)) } "." }
                            @else { "No more results." }
                        }
                    }
                    // The likes of a page are one page of them.
                    @if results.similar_to.is_none() { (pagination(results)) }
                }
            }
        },
    )
}

/// What a page is called on a "Pages like" line: its title, else its URL.
fn named(source: &SimilarTo) -> &str {
    if source.title.trim().is_empty() {
        &source.url
    } else {
        &source.title
    }
}

/// The query with each word that was searched with its synonyms quoted, which searches it
/// as typed.
fn quoted_words(results: &SearchResults) -> String {
    results
        .query
        .split_whitespace()
        .map(|word| {
            let expanded = results
                .synonyms
                .iter()
                .any(|e| e.word == word.to_lowercase());
            if expanded {
                format!("\"{word}\"")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `n results`.
pub(crate) fn count(total: u64) -> String {
    match total {
        1 => "1 result".into(),
        n => format!("{n} results"),
    }
}

/// A page that explains a problem (no index, not found, bad request ...).
pub fn problem(title: &str, message: &str) -> Markup {
    layout(
        &format!("{title} - sift"),
        html! { (header("")) main { div.notice { strong { (title) } p { (message) } } } },
    )
}

/// A cached copy: a banner, and `document` (the stored page as [`crate::cached_html`]
/// rewrote it, or [`copy_as_text`]) in a sandboxed frame (no scripts, no forms, no
/// same-origin rights; it travels escaped in the `srcdoc` attribute). Its links open in a new
/// tab, outside the sandbox.
pub fn cache(url: &str, fetched_at: &str, document: &str) -> Markup {
    layout(
        &format!("Cached: {} - sift", shown(url, URL_CHARS)),
        html! {
            (header(""))
            main.wide {
                p.notice {
                    "This is the cached copy of " a href=(url) { bdi { (shown(url, URL_CHARS)) } }
                    " fetched at " (fetched_at) ". "
                    "The page may have changed since."
                }
                iframe.cache sandbox=(SANDBOX) referrerpolicy="no-referrer" srcdoc=(document) title={ "cached copy of " (url) } {}
            }
        },
    )
}

/// The frame's document when a stored page could not be rewritten (see
/// [`crate::cached_html`]): its source as text, and why.
pub fn copy_as_text(stored_html: &str, why: &str) -> String {
    html! {
        p { "This copy is shown as source text: " (why) "." }
        pre style="white-space: pre-wrap" { (stored_html) }
    }
    .into_string()
}

/// What the frame of a cached copy may do: open its links in a new, ordinary tab. No
/// scripts, forms, plugins or same-origin access.
pub const SANDBOX: &str = "allow-popups allow-popups-to-escape-sandbox";

/// A page of facts: a heading and a two-column table (`/status`, `/explain`).
pub fn facts(title: &str, heading: &str, rows: &[(&str, String)]) -> Markup {
    layout(
        &format!("{title} - sift"),
        html! {
            (header(""))
            main {
                h2 { (heading) }
                table.facts {
                    @for (name, value) in rows { tr { th { (name) } td { bdi { (shown(value, VALUE_CHARS)) } } } }
                }
            }
        },
    )
}

/// Percent-encodes a query-string value.
pub fn urlencode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranking::PageSignals;

    fn one_hit(title: &str, url: &str, snippet: Snippet) -> SearchResults {
        SearchResults {
            query: "<script>q</script>".into(),
            total: 1,
            took_ms: 1.0,
            page: 1,
            per_page: 10,
            hits: vec![Hit {
                url: url.into(),
                title: title.into(),
                host: "a.test".into(),
                snippet,
                score: 1.0,
                signals: PageSignals {
                    inlinks: 0,
                    external_inlinks: 0,
                    depth: 1,
                    rank_level: 8,
                    code_percent: 0,
                    body_words: 100,
                },
                fetched_at_ms: 0,
                explanation: None,
                all_words: true,
                kind: "html".into(),
                lang: "en".into(),
                lang_reason: String::new(),
                date: None,
                published: None,
                modified: None,
                simhash: 0,
                also_in: Vec::new(),
            }],
            ..SearchResults::default()
        }
    }

    #[test]
    fn a_pdf_result_says_so_and_a_page_says_nothing() {
        let mut results = one_hit("Tide tables", "http://a.test/tides.pdf", Snippet::default());
        assert!(!results_page(&results).contains("class=\"kind\""));
        results.hits[0].kind = "pdf".into();
        assert!(results_page(&results).contains("<span class=\"kind\">PDF</span>"));
    }

    fn results_page(found: &SearchResults) -> String {
        results(found).into_string()
    }

    #[test]
    fn synonyms_used_are_said_with_a_link_to_the_words_as_typed() {
        let mut results = one_hit("Clusters", "http://a.test/k", Snippet::default());
        assert!(!results_page(&results).contains("Also searched"));
        results.query = "K8s <b>".into();
        results.synonyms = vec![crate::synonyms::Expansion {
            word: "k8s".into(),
            with: vec!["kubernetes".into(), "<kube>".into()],
        }];
        let page = results_page(&results);
        assert!(
            page.contains(
                "Also searched: kubernetes, &lt;kube&gt; for <strong>k8s</strong> \
                 (<a href=\"/search?q=%22K8s%22+%3Cb%3E\">only the words typed</a>)"
            ),
            "{page}"
        );
    }

    #[test]
    fn facets_link_their_operators_escaped_and_keep_the_order() {
        let mut results = one_hit("Tides", "http://a.test/t", Snippet::default());
        let pair = |value: &str, count| (value.to_string(), count);
        results.facets = Facets {
            lang: vec![pair("en", 3)],
            kind: vec![pair("html", 2), pair("pdf", 1)],
            site: vec![pair("a.test", 2), pair("\"><b>.test", 1)],
            year: vec![pair("2024", 2), pair("2023", 1)],
        };
        results.order = Order::Date;
        let page = results_page(&results);
        // One language: no language facet.
        assert!(!page.contains("aria-label=\"Languages\""), "{page}");
        assert!(page.contains("Kind: "), "{page}");
        assert!(
            page.contains(&format!(
                "href=\"{}\">PDF (1)</a>",
                page_link("<script>q</script> kind:pdf", 1, Order::Date).replace('&', "&amp;")
            )),
            "{page}"
        );
        assert!(
            page.contains("%3Cscript%3Eq%3C%2Fscript%3E+after%3A2023+before%3A2024&amp;page=1&amp;sort=date\">2023 (1)</a>"),
            "{page}"
        );
        assert!(page.contains("&quot;&gt;&lt;b&gt;.test (1)"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
    }

    #[test]
    fn web_text_is_escaped() {
        let page = results(&one_hit(
            "<script>alert(1)</script>",
            "http://a.test/\"><script>x</script>",
            Snippet {
                text: "a <b>bold</b> claim".into(),
                highlights: std::iter::once(2..5).collect(),
            },
        ))
        .into_string();
        assert!(!page.contains("<script>"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("<mark>&lt;b&gt;</mark>"), "{page}");
        assert!(
            page.contains("value=\"&lt;script&gt;q&lt;/script&gt;\""),
            "{page}"
        );
    }

    #[test]
    fn untitled_pages_show_their_url() {
        let page = results(&one_hit(" ", "http://a.test/x", Snippet::default())).into_string();
        assert!(page.contains("><bdi>http://a.test/x</bdi></a>"), "{page}");
    }

    #[test]
    fn cached_copies_stay_inside_an_escaped_attribute() {
        let page = cache(
            "http://a.test/\"x",
            "2026-01-01T00:00:00Z",
            "<base href=\"http://a.test/&amp;\"><p title=\"<script>\">hi</p>",
        )
        .into_string();
        assert!(!page.contains("<script>"), "{page}");
        assert!(!page.contains("<p title"), "{page}");
        assert!(
            page.contains("sandbox=\"allow-popups allow-popups-to-escape-sandbox\""),
            "{page}"
        );
        assert!(
            page.contains("srcdoc=\"&lt;base href=&quot;http://a.test/&amp;amp;&quot;&gt;"),
            "{page}"
        );
    }

    #[test]
    fn a_copy_shown_as_text_is_escaped_text() {
        let document = copy_as_text("<script>alert(1)</script><a href=\"x\">", "ambiguous");
        assert!(
            document.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;a href=&quot;x&quot;&gt;"),
            "{document}"
        );
        assert!(!document.contains("<script"), "{document}");
        assert!(document.contains("ambiguous"), "{document}");
    }

    #[test]
    fn pagination_links_keep_the_query() {
        let mut many = one_hit("t", "http://a.test/", Snippet::default());
        many.query = "a&b c".into();
        many.total = 95;
        many.page = 3;
        let page = results(&many).into_string();
        assert!(
            page.contains("href=\"/search?q=a%26b+c&amp;page=2\""),
            "{page}"
        );
        assert!(
            page.contains("href=\"/search?q=a%26b+c&amp;page=10\""),
            "{page}"
        );
        assert!(!page.contains("page=11"), "{page}");
    }
}
