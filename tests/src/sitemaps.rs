//! `maps.test`: a site whose robots.txt names sitemaps that list pages no link reaches.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | `Disallow: /hidden/`; `Sitemap:` lines for `/sitemap_index.xml` and `/extra.txt` |
//! | `/sitemap_index.xml` | a sitemap index naming `/sitemap-pages.xml` and `/sitemap-more.xml.gz` |
//! | `/sitemap-pages.xml` | `/orphan-1.html`, `/orphan-2.html`, `/hidden/secret.html` (robots.txt forbids it), `http://elsewhere.test/` (out of scope) |
//! | `/sitemap-more.xml.gz` | gzip of a urlset with `/orphan-3.html` (served as `application/gzip`, no `Content-Encoding`) |
//! | `/extra.txt` | a plain-text sitemap: `/orphan-4.html` |
//! | `/` | links only to `/linked.html` |
//! | `/linked.html`, `/orphan-N.html`, `/hidden/secret.html` | 200 pages |

use warp::reply::Response;

use crate::gzip::gzip;
use crate::reply::{bytes, html, not_found, page, text};

/// Every page a crawl of `maps.test` must store: the linked ones and the sitemaps' orphans.
pub const MAPS_PAGES: &[&str] = &[
    "/",
    "/linked.html",
    "/orphan-1.html",
    "/orphan-2.html",
    "/orphan-3.html",
    "/orphan-4.html",
];

/// Every sitemap file of `maps.test`, in the order robots.txt and the index name them.
pub const MAPS_SITEMAPS: &[&str] = &[
    "/sitemap_index.xml",
    "/extra.txt",
    "/sitemap-pages.xml",
    "/sitemap-more.xml.gz",
];

/// A sitemap entry robots.txt forbids: never fetched.
pub const MAPS_DISALLOWED: &str = "/hidden/secret.html";

/// Answers one request to `maps.test`; `port` is the test web's, for absolute URLs.
pub(crate) fn respond(path: &str, port: u16) -> Response {
    let base = format!("http://maps.test:{port}");
    let urlset = |paths: &[&str]| {
        let urls: String = paths
            .iter()
            .map(|p| {
                let loc = if p.starts_with("http") {
                    (*p).to_string()
                } else {
                    format!("{base}{p}")
                };
                format!("  <url><loc>{loc}</loc><lastmod>2026-11-01</lastmod></url>\n")
            })
            .collect();
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{urls}</urlset>\n"
        )
    };
    match path {
        "/robots.txt" => text(
            200,
            format!(
                "User-agent: *\nDisallow: /hidden/\n\nSitemap: {base}/sitemap_index.xml\nSitemap: {base}/extra.txt\n"
            ),
        ),
        "/sitemap_index.xml" => bytes(
            200,
            "application/xml",
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                 <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
                 <sitemap><loc>{base}/sitemap-pages.xml</loc></sitemap>\n\
                 <sitemap><loc>{base}/sitemap-more.xml.gz</loc></sitemap>\n\
                 </sitemapindex>\n"
            ),
        ),
        "/sitemap-pages.xml" => bytes(
            200,
            "application/xml",
            urlset(&[
                "/orphan-1.html",
                "/orphan-2.html",
                MAPS_DISALLOWED,
                "http://elsewhere.test/",
            ]),
        ),
        "/sitemap-more.xml.gz" => bytes(
            200,
            "application/gzip",
            gzip(urlset(&["/orphan-3.html"]).as_bytes()),
        ),
        "/extra.txt" => text(200, format!("{base}/orphan-4.html\n")),
        "/" => html(
            200,
            page(
                "Lighthouse keepers' association",
                "<p>Read about the <a href=\"/linked.html\">keepers' logbooks</a>.</p>",
            ),
        ),
        "/linked.html"
        | "/orphan-1.html"
        | "/orphan-2.html"
        | "/orphan-3.html"
        | "/orphan-4.html"
        | "/hidden/secret.html" => html(
            200,
            page(
                &format!("Logbook page {path}"),
                &format!("<p>Entries of the logbook kept at {path}.</p>"),
            ),
        ),
        _ => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sitemaps_and_pages_exist() {
        for path in MAPS_PAGES
            .iter()
            .chain(MAPS_SITEMAPS)
            .chain([&MAPS_DISALLOWED])
        {
            assert_eq!(respond(path, 1).status(), 200, "{path}");
        }
    }
}
