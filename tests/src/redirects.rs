//! `redirect.test`: redirects of every shape a crawler meets.
//!
//! | path | answer |
//! |---|---|
//! | `/` | 200, links to every path below |
//! | `/start` | 301 `Location: /middle` (path-absolute) |
//! | `/middle` | 302 `Location: http://redirect.test:PORT/end` (absolute) |
//! | `/end` | 200, the end of the chain |
//! | `/relative` | 301 `Location: end` (relative reference, resolves to `/end`) |
//! | `/loop-a`, `/loop-b` | 301 to each other, forever |
//! | `/offsite` | 302 to another test host, `http://norobots.test:PORT/` |
//! | `/to-private` | 302 to [`PRIVATE_ADDRESS_URL`], outside loopback: a crawler must refuse it without connecting (the test web never contacts it) |
//! | `/into-secret` | 301 `Location: /via-secret` |
//! | `/via-secret` | 302 `Location: /secret/page.html`, a path robots.txt disallows |
//! | `/secret/page.html` | 200, but robots.txt (`Disallow: /secret/`) forbids it: never fetched |
//! | `/meta-refresh` | 200 with `<meta http-equiv="refresh" content="0; url=/end">` |
//! | `/chain/1` ..= `/chain/9` | 301 to the next; `/chain/10` answers 200 ([`REDIRECT_CHAIN_LEN`] hops in all) |

use warp::reply::Response;

use crate::reply::{html, not_found, page, redirect, text};

/// Where `/to-private` redirects: an address outside loopback that must never be fetched.
pub const PRIVATE_ADDRESS_URL: &str = "http://10.0.0.1/";

/// `/chain/1` redirects through `/chain/2` ... to `/chain/10`, which answers 200.
pub const REDIRECT_CHAIN_LEN: usize = 10;

/// Answers one request to `redirect.test`; `port` is the test web's port, for absolute
/// `Location`s.
pub(crate) fn respond(path: &str, port: u16) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow: /secret/\n"),
        "/" => html(200, index()),
        "/start" => redirect(301, "/middle"),
        "/middle" => redirect(302, &format!("http://redirect.test:{port}/end")),
        "/end" => html(
            200,
            page(
                "The end of the road",
                "<p>You have followed two redirects to reach this page: a permanent one and a \
                 temporary one. Crawlers store each hop and this final page.</p>",
            ),
        ),
        "/relative" => redirect(301, "end"),
        "/loop-a" => redirect(301, "/loop-b"),
        "/loop-b" => redirect(301, "/loop-a"),
        "/into-secret" => redirect(301, "/via-secret"),
        "/via-secret" => redirect(302, "/secret/page.html"),
        "/secret/page.html" => html(
            200,
            page(
                "Secret",
                "<p>A crawler that obeys robots.txt never reads this.</p>",
            ),
        ),
        "/offsite" => redirect(302, &format!("http://norobots.test:{port}/")),
        "/to-private" => redirect(302, PRIVATE_ADDRESS_URL),
        "/meta-refresh" => html(
            200,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n\
             <meta http-equiv=\"refresh\" content=\"0; url=/end\">\n<title>Moved</title></head>\n\
             <body><p>This page has moved to <a href=\"/end\">the end page</a>.</p></body></html>\n",
        ),
        _ => chain(path).unwrap_or_else(not_found),
    }
}

fn chain(path: &str) -> Option<Response> {
    let digits = path.strip_prefix("/chain/")?;
    let n: usize = digits.parse().ok()?;
    if n == 0 || n > REDIRECT_CHAIN_LEN || n.to_string() != digits {
        return None;
    }
    Some(if n < REDIRECT_CHAIN_LEN {
        redirect(301, &format!("/chain/{}", n + 1))
    } else {
        html(
            200,
            page(
                "End of the chain",
                "<p>Ten hops from the first link of the chain.</p>",
            ),
        )
    })
}

fn index() -> String {
    let links: String = [
        "/start",
        "/relative",
        "/loop-a",
        "/offsite",
        "/to-private",
        "/into-secret",
        "/meta-refresh",
        "/chain/1",
    ]
    .iter()
    .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>\n"))
    .collect();
    page("Redirects", &format!("<ul>\n{links}</ul>"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(path: &str) -> (u16, String) {
        let response = respond(path, 4242);
        let location = response
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        (response.status().as_u16(), location)
    }

    #[test]
    fn redirect_table() {
        assert_eq!(location("/start"), (301, "/middle".into()));
        assert_eq!(
            location("/middle"),
            (302, "http://redirect.test:4242/end".into())
        );
        assert_eq!(location("/end"), (200, String::new()));
        assert_eq!(location("/relative"), (301, "end".into()));
        assert_eq!(location("/loop-a"), (301, "/loop-b".into()));
        assert_eq!(location("/loop-b"), (301, "/loop-a".into()));
        assert_eq!(
            location("/offsite"),
            (302, "http://norobots.test:4242/".into())
        );
        assert_eq!(location("/to-private"), (302, PRIVATE_ADDRESS_URL.into()));
        assert_eq!(location("/chain/1"), (301, "/chain/2".into()));
        assert_eq!(location("/chain/10"), (200, String::new()));
        assert_eq!(location("/chain/11").0, 404);
        assert_eq!(location("/meta-refresh").0, 200);
    }
}
