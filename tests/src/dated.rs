//! `dates.test`: pages that say when they were published and modified in every way a page
//! does, several at once (the most trusted wins), in a time zone, in chrome that is not the
//! content, past the size a JSON-LD script may have, in the future or not at all.
//!
//! | path | what it says | its dates (published / modified) |
//! |---|---|---|
//! | `/` | links to every page below | |
//! | [`DATED_JSON_LD`] | JSON-LD `@graph` (published `2021-05-04T01:30:00+02:00`: the 3rd in UTC), article meta, a `<time>`, `Last-Modified` | 2021-05-03 JSON-LD / 2021-06-01 JSON-LD |
//! | [`DATED_META`] | `article:published_time`, `article:modified_time`, a `<time>` in the article's header | 2020-02-03 meta / 2020-02-10 meta |
//! | [`DATED_TIME`] | a `<time>` in the nav (not content), one in the article's header, one `itemprop="dateModified"` | 2019-03-04 time / 2019-04-05 time |
//! | [`DATED_URL`] | nothing but its path, `/2018/06/07/` | 2018-06-07 URL / none |
//! | [`DATED_PLAIN`] | a `Last-Modified` header only | none / 2022-03-15 header |
//! | [`DATED_NONE`] | nothing | none / none |
//! | [`DATED_HOSTILE`] | JSON-LD in 2090, a 70 KiB JSON-LD script, `article:published_time` "yesterday", `<time datetime="2024-02-30">`, `Last-Modified` | none / 2022-03-15 header |
//!
//! Each page has a word of its own ([`DATED_WORDS`]) and the word [`DATED_SHARED_WORD`].
//!
//! `almanac.test` (`respond_archive`) is a second site of the same word, for facets: `/`
//! links [`ARCHIVE_SPRING`] (JSON-LD, 2021-02-01, the word three times: first by relevance)
//! and [`ARCHIVE_AUTUMN`] (article meta, 2021-08-01: first by date).

use warp::reply::Response;

use crate::reply::{html, not_found, with_header};

/// JSON-LD, with article meta, a `<time>` and a header that it outranks.
pub const DATED_JSON_LD: &str = "/news/ld.html";
/// Article meta tags, with a `<time>` they outrank.
pub const DATED_META: &str = "/news/meta.html";
/// `<time>` elements.
pub const DATED_TIME: &str = "/news/time.html";
/// A date in the path only.
pub const DATED_URL: &str = "/2018/06/07/dated-path.html";
/// A `Last-Modified` header only.
pub const DATED_PLAIN: &str = "/plain.html";
/// No date at all.
pub const DATED_NONE: &str = "/undated.html";
/// Dates that are not to be believed, and a header that is.
pub const DATED_HOSTILE: &str = "/news/hostile.html";
/// Every page, in the order of [`DATED_WORDS`].
pub const DATED_PAGES: [&str; 7] = [
    DATED_JSON_LD,
    DATED_META,
    DATED_TIME,
    DATED_URL,
    DATED_PLAIN,
    DATED_NONE,
    DATED_HOSTILE,
];
/// The word of each page of [`DATED_PAGES`].
pub const DATED_WORDS: [&str; 7] = [
    "aurora", "basalt", "cobalt", "ember", "feldspar", "garnet", "dolomite",
];
/// A word on every page.
pub const DATED_SHARED_WORD: &str = "almanac";

/// `almanac.test`'s older page, which says the shared word most.
pub const ARCHIVE_SPRING: &str = "/spring.html";
/// `almanac.test`'s newer page.
pub const ARCHIVE_AUTUMN: &str = "/autumn.html";

/// Answers a request to `almanac.test`.
pub(crate) fn respond_archive(path: &str) -> Response {
    let (title, head, text) = match path {
        "/" => (
            "Almanac archive",
            "",
            format!(
                "<a href=\"{ARCHIVE_SPRING}\">spring</a> <a href=\"{ARCHIVE_AUTUMN}\">autumn</a>"
            ),
        ),
        ARCHIVE_SPRING => (
            "Spring almanac",
            r#"<script type="application/ld+json">{"datePublished":"2021-02-01"}</script>"#,
            format!(
                "<main><p>The {w} of spring: the {w} says the thaw comes late; every {w} \
                 agrees on the frost.</p></main>",
                w = DATED_SHARED_WORD
            ),
        ),
        ARCHIVE_AUTUMN => (
            "Autumn notes",
            r#"<meta property="article:published_time" content="2021-08-01">"#,
            format!(
                "<main><p>Notes for autumn from the {DATED_SHARED_WORD}: the harvest, the \
                 first storms and the long evenings by the fire.</p></main>"
            ),
        ),
        _ => return not_found(),
    };
    html(200, page(title, head, &text))
}

/// The `Last-Modified` of the pages that send one.
const LAST_MODIFIED: &str = "Tue, 15 Mar 2022 12:00:00 GMT";

/// Answers a request to `dates.test`.
pub(crate) fn respond(path: &str) -> Response {
    if path == "/" {
        let links: String = DATED_PAGES
            .iter()
            .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>"))
            .collect();
        return html(200, page("Almanac", "", &format!("<ul>{links}</ul>")));
    }
    let Some(i) = DATED_PAGES.iter().position(|p| *p == path) else {
        return not_found();
    };
    let word = DATED_WORDS[i];
    let text = format!(
        "<p>The {DATED_SHARED_WORD} entry on {word}: where it is found, how it was named, and \
         what the people who first described it wrote about {word} in their notebooks.</p>"
    );
    let (head, body) = match path {
        DATED_JSON_LD => (
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
                {"@type":"WebSite","name":"Almanac"},
                {"@type":"NewsArticle","datePublished":"2021-05-04T01:30:00+02:00",
                 "dateModified":"2021-06-01"}]}</script>
               <meta property="article:published_time" content="2020-01-01">"#
                .to_string(),
            format!("<article><time datetime=\"2019-01-01\">long ago</time>{text}</article>"),
        ),
        DATED_META => (
            r#"<meta property="article:published_time" content="2020-02-03T10:00:00Z">
               <meta property="article:modified_time" content="2020-02-10T08:00:00Z">"#
                .to_string(),
            format!(
                "<article><header><time datetime=\"2019-01-01\">then</time></header>{text}</article>"
            ),
        ),
        DATED_TIME => (
            String::new(),
            format!(
                "<nav><time datetime=\"2000-01-01\">site founded</time></nav>\
                 <article><header><h2>Entry</h2><time datetime=\"2019-03-04T12:00\">4 March \
                 2019</time>, updated <time itemprop=\"dateModified\" \
                 datetime=\"2019-04-05\">5 April</time></header>{text}</article>"
            ),
        ),
        DATED_HOSTILE => {
            let padding = "x".repeat(70 * 1024);
            (
                format!(
                    r#"<script type="application/ld+json">{{"datePublished":"2090-01-01"}}</script>
                       <script type="application/ld+json">{{"padding":"{padding}","datePublished":"2015-01-01"}}</script>
                       <meta property="article:published_time" content="yesterday">"#
                ),
                format!("<main><time datetime=\"2024-02-30\">never</time>{text}</main>"),
            )
        }
        _ => (String::new(), format!("<main>{text}</main>")),
    };
    let response = html(200, page(&format!("The {word} entry"), &head, &body));
    match path {
        DATED_JSON_LD | DATED_PLAIN | DATED_HOSTILE => {
            with_header(response, "last-modified", LAST_MODIFIED)
        }
        _ => response,
    }
}

fn page(title: &str, head: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=utf-8><title>{title}</title>{head}\
         </head><body><h1>{title}</h1>{body}</body></html>"
    )
}
