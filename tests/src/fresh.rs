//! `fresh.test`: a site that answers conditional requests, changes when the test says so, and
//! is busy once.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | allows everything, `Cache-Control: max-age=7200` (two hours) |
//! | `/` | 200, `ETag: "home"`; 304 to a matching `If-None-Match`; links to every page below |
//! | `/news.html` | 200, `ETag: "news-N"` for the current edition N ([`crate::TestWeb::set_fresh_edition`]); 304 to the current tag only |
//! | `/static.html` | 200, `Last-Modified` only (no `ETag`); 304 to an equal `If-Modified-Since` |
//! | `/busy.html` | 503 with `Retry-After: 1` to its first request, 200 afterwards |
//! | `/meta.html` | 200, with `<meta name="keywords">` and `<meta name="revisit-after" content="7 days">` |
//! | `/withdrawn.html` | not linked; 200 with [`WITHDRAWN_WORD`] in edition 1, `410 Gone` from edition 2 on |

use warp::http::HeaderMap;
use warp::http::header::{ETAG, HeaderValue, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};
use warp::reply::Response;

use crate::reply::{html, not_found, page, text, with_header};

/// Every page of `fresh.test`.
pub const FRESH_PATHS: &[&str] = &[
    "/",
    "/news.html",
    "/static.html",
    "/busy.html",
    "/meta.html",
];

/// `Last-Modified` of `/static.html`.
pub const STATIC_LAST_MODIFIED: &str = "Tue, 15 Nov 1994 12:45:26 GMT";

/// The words of `/meta.html`'s `<meta name="keywords">`.
pub const META_KEYWORDS: &str = "tide tables, harbour, moorings";

/// The page of `fresh.test` that is withdrawn (410) after edition 1; linked from nowhere.
pub const WITHDRAWN_PATH: &str = "/withdrawn.html";
/// A word only [`WITHDRAWN_PATH`] holds while it exists.
pub const WITHDRAWN_WORD: &str = "withdrawnnotice";

/// A word only edition N of `/news.html` holds: `editionN`.
pub fn news_word(edition: u32) -> String {
    format!("edition{edition}")
}

/// Answers one request to `fresh.test`. `edition` is the current edition of `/news.html`;
/// `earlier_requests` is how many times this path was asked before this request.
pub(crate) fn respond(
    path: &str,
    headers: &HeaderMap,
    edition: u32,
    earlier_requests: usize,
) -> Response {
    let header = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    match path {
        "/robots.txt" => with_header(
            text(200, "User-agent: *\nDisallow:\n"),
            "cache-control",
            "max-age=7200",
        ),
        "/" => tagged(headers, "\"home\"".into(), || {
            page(
                "Harbour office",
                "<ul><li><a href=\"/news.html\">News</a></li><li><a href=\"/static.html\">Charges</a></li>\
                 <li><a href=\"/busy.html\">Bookings</a></li><li><a href=\"/meta.html\">Tides</a></li></ul>",
            )
        }),
        "/news.html" => tagged(headers, format!("\"news-{edition}\""), || {
            page(
                "Harbour news",
                &format!(
                    "<p>This is {} of the harbour news: the quay wall repairs go on.</p>",
                    news_word(edition)
                ),
            )
        }),
        "/static.html" => {
            if header(IF_MODIFIED_SINCE) == Some(STATIC_LAST_MODIFIED) {
                return not_modified();
            }
            with_header(
                html(
                    200,
                    page(
                        "Mooring charges",
                        "<p>Visitors pay by the night and the metre.</p>",
                    ),
                ),
                "last-modified",
                STATIC_LAST_MODIFIED,
            )
        }
        "/busy.html" if earlier_requests == 0 => with_header(
            text(503, "503 Busy, come back in a second\n"),
            "retry-after",
            "1",
        ),
        "/busy.html" => html(
            200,
            page("Bookings", "<p>Berths can be booked a week ahead.</p>"),
        ),
        "/meta.html" => html(
            200,
            format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Tide tables</title>\
                 <meta name=\"keywords\" content=\"{META_KEYWORDS}\">\
                 <meta name=\"revisit-after\" content=\"7 days\"></head>\
                 <body><h1>Tide tables</h1><p>High water is about fifty minutes later each day.</p></body></html>"
            ),
        ),
        WITHDRAWN_PATH if edition <= 1 => html(
            200,
            page(
                "Notice to mariners",
                &format!("<p>The {WITHDRAWN_WORD} about the harbour entrance buoy.</p>"),
            ),
        ),
        WITHDRAWN_PATH => html(410, page("Gone", "<p>This notice was withdrawn.</p>")),
        _ => not_found(),
    }
}

/// 200 with `etag`, or 304 when the request's `If-None-Match` names it.
fn tagged(headers: &HeaderMap, etag: String, body: impl FnOnce() -> String) -> Response {
    let matches = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|sent| sent.split(',').any(|tag| tag.trim() == etag));
    let mut response = if matches {
        not_modified()
    } else {
        html(200, body())
    };
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(ETAG, value);
    }
    response
}

fn not_modified() -> Response {
    let mut response = text(304, "");
    response.headers_mut().remove(LAST_MODIFIED);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditional_answers() {
        let none = HeaderMap::new();
        assert_eq!(respond("/news.html", &none, 1, 0).status(), 200);
        let mut current = HeaderMap::new();
        current.insert(IF_NONE_MATCH, HeaderValue::from_static("\"news-1\""));
        assert_eq!(respond("/news.html", &current, 1, 0).status(), 304);
        assert_eq!(
            respond("/news.html", &current, 2, 0).status(),
            200,
            "a new edition"
        );
        let mut since = HeaderMap::new();
        since.insert(
            IF_MODIFIED_SINCE,
            HeaderValue::from_static(STATIC_LAST_MODIFIED),
        );
        assert_eq!(respond("/static.html", &since, 1, 0).status(), 304);
        assert_eq!(respond("/busy.html", &none, 1, 0).status(), 503);
        assert_eq!(respond("/busy.html", &none, 1, 1).status(), 200);
        for path in FRESH_PATHS {
            assert_eq!(respond(path, &none, 1, 1).status(), 200, "{path}");
        }
    }
}
