//! `traps.test`: pages that catch careless crawlers.
//!
//! | path | answer |
//! |---|---|
//! | `/` | 200, links to every trap below |
//! | `/calendar/YYYY/MM` | 200, a month page linking to the next month, forever |
//! | `/a/`, `/a/b/`, `/a/b/a/` ... | 200 for any path of `a`/`b` segments ending in `/`, linking to `a/` and `b/` below itself |
//! | `/slow` | 200 after [`SLOW_DELAY`] |
//! | `/huge` | 200, an endless HTML body streamed in 64 KiB chunks (never buffered; ends only when the client hangs up or the test web stops) |
//! | `/gzip` | 200, `Content-Encoding: gzip` whatever the request accepts; the page holds [`GZIP_WORD`] |
//! | `/latin1` | 200, `text/html; charset=iso-8859-1`, bytes in ISO-8859-1, holding [`LATIN1_WORD`] |
//! | `/error` | 500 |
//! | `/facets?n=N` | 200, faceted search: links to `?n=N+1` and `?n=N+1&sort=desc`, forever (a different query string each time) |

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::watch;
use warp::reply::Response;

use crate::gzip::gzip;
use crate::reply::{HTML_UTF8, bytes, html, not_found, page, streamed_html, text, with_header};

/// How long `/slow` waits before answering.
pub const SLOW_DELAY: Duration = Duration::from_secs(2);

/// A word only the decoded `/gzip` page holds.
pub const GZIP_WORD: &str = "gzipdecodedmarker";

/// A word only `/latin1` holds, as it reads after decoding ISO-8859-1 (`é` is byte `0xE9`).
pub const LATIN1_WORD: &str = "café";

/// The size of one chunk of `/huge`.
pub const HUGE_CHUNK_BYTES: usize = 64 * 1024;

/// Answers one request to `traps.test`; `query` is the raw query string (may be empty);
/// `stop` turns true when the test web shuts down.
pub(crate) async fn respond(path: &str, query: &str, stop: &watch::Receiver<bool>) -> Response {
    match path {
        "/facets" => html(200, facets(query)),
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(200, index()),
        "/slow" => {
            tokio::time::sleep(SLOW_DELAY).await;
            html(
                200,
                page(
                    "A slow page",
                    "<p>This page took two seconds to answer.</p>",
                ),
            )
        }
        "/huge" => huge(stop.clone()),
        "/gzip" => {
            let body = page(
                "A compressed page",
                &format!(
                    "<p>This page was sent gzip-encoded. A crawler that decodes it reads {GZIP_WORD}.</p>"
                ),
            );
            with_header(
                bytes(200, HTML_UTF8, gzip(body.as_bytes())),
                "content-encoding",
                "gzip",
            )
        }
        "/latin1" => bytes(200, "text/html; charset=iso-8859-1", latin1()),
        "/error" => text(500, "500 Internal Server Error\n"),
        _ => calendar(path)
            .or_else(|| repeated(path))
            .map_or_else(not_found, |body| html(200, body)),
    }
}

/// What `traps.test`'s home page links to: each trap's first page.
pub const TRAPS_LINKED: [&str; 8] = [
    "/calendar/2024/01",
    "/a/",
    "/slow",
    "/huge",
    "/gzip",
    "/latin1",
    "/error",
    "/facets?n=0",
];

fn index() -> String {
    let links: String = TRAPS_LINKED
        .iter()
        .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>\n"))
        .collect();
    page("Crawler traps", &format!("<ul>\n{links}</ul>"))
}

/// `/facets?n=N...`: a result page linking to two more, each with a new query string.
fn facets(query: &str) -> String {
    let n: u64 = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("n="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let next = n + 1;
    page(
        &format!("Results, page {n}"),
        &format!(
            "<p>Nothing matched.</p>\n<p><a href=\"/facets?n={next}\">More</a> \
             <a href=\"/facets?n={next}&amp;sort=desc\">Newest first</a></p>"
        ),
    )
}

/// `/calendar/YYYY/MM`: a month page linking to the next one.
fn calendar(path: &str) -> Option<String> {
    let rest = path.strip_prefix("/calendar/")?;
    let (year, month) = rest.split_once('/')?;
    if year.len() < 4 || !year.bytes().all(|b| b.is_ascii_digit()) || month.len() != 2 {
        return None;
    }
    let year: u64 = year.parse().ok()?;
    let month: u32 = month.parse().ok().filter(|m| (1..=12).contains(m))?;
    let (next_year, next_month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    Some(page(
        &format!("Events in {year}-{month:02}"),
        &format!(
            "<p>No events are planned this month.</p>\n\
             <p><a href=\"/calendar/{next_year}/{next_month:02}\">Next month</a></p>"
        ),
    ))
}

/// `/a/`, `/a/b/`, ...: every path of `a` and `b` segments with a trailing slash.
fn repeated(path: &str) -> Option<String> {
    let inner = path.strip_prefix('/')?.strip_suffix('/')?;
    if inner.is_empty()
        || !inner
            .split('/')
            .all(|segment| segment == "a" || segment == "b")
    {
        return None;
    }
    Some(page(
        &format!("Directory {path}"),
        "<p>Every directory here has two subdirectories.</p>\n\
         <ul><li><a href=\"a/\">a</a></li><li><a href=\"b/\">b</a></li></ul>",
    ))
}

/// The `/latin1` page, encoded as ISO-8859-1 (every character is below U+0100).
fn latin1() -> Vec<u8> {
    let page = page(
        "Caf\u{e9} de la Plage",
        &format!(
            "<p>The little {LATIN1_WORD} at the end of the promenade serves cr\u{e8}me br\u{fb}l\u{e9}e \
             and na\u{ef}ve coffee to early walkers.</p>"
        ),
    );
    page.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

/// An endless streamed HTML body.
fn huge(stop: watch::Receiver<bool>) -> Response {
    let head =
        Bytes::from_static(b"<!DOCTYPE html>\n<html><head><title>Endless</title></head><body>\n");
    let line = b"<p>This page never ends: it keeps streaming the same paragraph.</p>\n";
    let mut filler = Vec::with_capacity(HUGE_CHUNK_BYTES);
    while filler.len() + line.len() <= HUGE_CHUNK_BYTES {
        filler.extend_from_slice(line);
    }
    filler.resize(HUGE_CHUNK_BYTES, b'\n');
    let chunk = Bytes::from(filler);
    let chunks = std::iter::once(head)
        .chain(std::iter::from_fn(move || {
            (!*stop.borrow()).then(|| chunk.clone())
        }))
        .map(Ok::<Bytes, Infallible>);
    streamed_html(futures_util::stream::iter(chunks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_and_repeated_paths() {
        assert!(calendar("/calendar/2024/12").is_some_and(|p| p.contains("/calendar/2025/01")));
        assert!(calendar("/calendar/2024/01").is_some_and(|p| p.contains("/calendar/2024/02")));
        for bad in [
            "/calendar/2024/13",
            "/calendar/24/01",
            "/calendar/2024/1",
            "/calendar/2024",
        ] {
            assert!(calendar(bad).is_none(), "{bad}");
        }
        assert!(repeated("/a/b/a/b/").is_some());
        for bad in ["/a", "/", "/a/c/", "/a//"] {
            assert!(repeated(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn latin1_is_single_byte() {
        let body = latin1();
        assert!(body.windows(4).any(|w| w == b"caf\xe9"));
        assert!(!body.is_ascii() && std::str::from_utf8(&body).is_err());
    }
}
