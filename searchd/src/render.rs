//! HTML pages, as maud templates: every string from the web or the user is escaped by maud.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use crate::search::{Hit, SearchResults, Snippet};

const STYLE: &str = "
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328;background:#fff}
header{padding:1.2rem 2rem;border-bottom:1px solid #e5e7eb;display:flex;gap:1.5rem;align-items:center}
header a.logo{font-weight:700;font-size:1.4rem;color:#0b6e4f;text-decoration:none}
main{padding:1rem 2rem;max-width:52rem}
form.search{display:flex;gap:.5rem;flex:1;max-width:40rem}
form.search input[type=search]{flex:1;font-size:1.05rem;padding:.55rem .8rem;border:1px solid #c9ccd1;border-radius:6px}
form.search button{font-size:1rem;padding:.55rem 1.1rem;border:0;border-radius:6px;background:#0b6e4f;color:#fff;cursor:pointer}
.home{display:flex;flex-direction:column;align-items:center;margin-top:18vh;gap:1.5rem}
.home h1{font-size:3rem;color:#0b6e4f;margin:0}
.meta{color:#6b7280;font-size:.9rem;margin:.4rem 0 1.2rem}
.hit{margin:0 0 1.4rem}
.hit a.title{font-size:1.15rem;color:#1a0dab;text-decoration:none}
.hit a.title:hover{text-decoration:underline}
.hit .url{color:#0b6e4f;font-size:.85rem;word-break:break-all}
.hit .snippet{margin:.25rem 0 0;line-height:1.45}
.hit .cached{font-size:.8rem;color:#6b7280}
mark{background:#fff3b0;padding:0 .1em}
nav.pages{display:flex;gap:.6rem;margin:2rem 0}
nav.pages a,nav.pages span{padding:.3rem .6rem;border-radius:4px}
nav.pages span.current{background:#0b6e4f;color:#fff}
.notice{padding:1rem;border-radius:6px;background:#f6f8fa;border:1px solid #e5e7eb}
iframe.cache{width:100%;height:75vh;border:1px solid #e5e7eb}
";

fn layout(title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="search" type="application/opensearchdescription+xml" title="sift" href="/opensearch.xml";
                style { (PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    }
}

fn search_form(query: &str) -> Markup {
    html! {
        form.search action="/search" method="get" role="search" {
            input type="search" name="q" value=(query) placeholder="Search" aria-label="Search" autofocus;
            button type="submit" { "Search" }
        }
    }
}

fn header(query: &str) -> Markup {
    html! { header { a.logo href="/" { "sift" } (search_form(query)) } }
}

/// The home page: a search box.
pub fn home(docs: Option<u64>) -> Markup {
    layout(
        "sift",
        html! {
            div.home {
                h1 { "sift" }
                (search_form(""))
                @if let Some(docs) = docs { p.meta { (docs) " pages indexed · " a href="/status" { "status" } } }
                @else { p.meta { "No index yet: run " code { "indexer build" } "." } }
            }
        },
    )
}

fn snippet(snippet: &Snippet) -> Markup {
    let text = &snippet.text;
    let mut parts = Vec::new();
    let mut at = 0;
    for range in &snippet.highlights {
        if range.start < at
            || range.end > text.len()
            || !text.is_char_boundary(range.start)
            || !text.is_char_boundary(range.end)
        {
            continue;
        }
        parts.push((false, &text[at..range.start]));
        parts.push((true, &text[range.start..range.end]));
        at = range.end;
    }
    parts.push((false, &text[at..]));
    html! {
        p.snippet { @for (marked, part) in parts { @if marked { mark { (part) } } @else { (part) } } }
    }
}

fn hit(hit: &Hit) -> Markup {
    let title = if hit.title.is_empty() {
        &hit.url
    } else {
        &hit.title
    };
    html! {
        div.hit {
            a.title href=(hit.url) { (title) }
            div.url { (hit.url) " · " a.cached href={ "/cache?url=" (urlencode(&hit.url)) } { "cached" } }
            @if !hit.snippet.text.is_empty() { (snippet(&hit.snippet)) }
        }
    }
}

fn page_link(query: &str, page: usize) -> String {
    format!("/search?q={}&page={page}", urlencode(query))
}

/// A results page.
pub fn results(results: &SearchResults) -> Markup {
    let last_page = (results.total as usize)
        .div_ceil(results.per_page)
        .clamp(1, crate::search::MAX_OFFSET / results.per_page + 1);
    let first = results.page.saturating_sub(4).max(1);
    let last = (first + 8).min(last_page);
    layout(
        &format!("{} - sift", results.query),
        html! {
            (header(&results.query))
            main {
                p.meta { (results.total) " results in " (format!("{:.1}", results.took_ms)) " ms" }
                @for h in &results.hits { (hit(h)) }
                @if results.hits.is_empty() { p.notice { "No pages match " strong { (results.query) } "." } }
                @if last_page > 1 {
                    nav.pages aria-label="pages" {
                        @if results.page > 1 { a href=(page_link(&results.query, results.page - 1)) { "‹ Previous" } }
                        @for p in first..=last {
                            @if p == results.page { span.current { (p) } } @else { a href=(page_link(&results.query, p)) { (p) } }
                        }
                        @if results.page < last_page { a href=(page_link(&results.query, results.page + 1)) { "Next ›" } }
                    }
                }
            }
        },
    )
}

/// A page that explains a problem (bad query, no index, not found ...).
pub fn problem(query: &str, title: &str, message: &str) -> Markup {
    layout(
        title,
        html! { (header(query)) main { div.notice { strong { (title) } p { (message) } } } },
    )
}

/// A cached copy, shown in a sandboxed frame (no scripts, no same-origin rights).
pub fn cache(url: &str, fetched_at: &str, html_body: &str) -> Markup {
    layout(
        &format!("Cached: {url}"),
        html! {
            (header(""))
            main {
                p.notice { "This is sift's copy of " a href=(url) { (url) } " as fetched at " (fetched_at) "." }
                iframe.cache sandbox="" srcdoc=(html_body) title="cached copy" {}
            }
        },
    )
}

/// The status page.
pub fn status(facts: &[(&str, String)]) -> Markup {
    layout(
        "Status - sift",
        html! {
            (header(""))
            main { h2 { "Status" } table { @for (name, value) in facts { tr { th style="text-align:left;padding-right:2rem" { (name) } td { (value) } } } } }
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
    use std::ops::Range;

    #[test]
    fn web_text_is_escaped() {
        let page = results(&SearchResults {
            query: "<script>q</script>".into(),
            total: 1,
            took_ms: 1.0,
            page: 1,
            per_page: 10,
            hits: vec![Hit {
                url: "http://a.test/\"><script>x</script>".into(),
                title: "<script>alert(1)</script>".into(),
                host: "a.test".into(),
                snippet: Snippet {
                    text: "a <b>bold</b> claim".into(),
                    highlights: vec![Range { start: 2, end: 5 }],
                },
                score: 1.0,
            }],
        })
        .into_string();
        assert!(!page.contains("<script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("<mark>&lt;b&gt;</mark>"), "{page}");
    }

    #[test]
    fn bad_highlight_ranges_are_ignored() {
        let markup = snippet(&Snippet {
            text: "héllo".into(),
            highlights: vec![0..2, 4..99],
        })
        .into_string();
        assert!(markup.contains("héllo"), "{markup}");
    }
}
