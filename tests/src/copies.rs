//! `copies.test`: near-duplicate pages, the same story served twice with small differences,
//! and one article under three URLs that name one of them as `rel=canonical`.
//!
//! | path | answer |
//! |---|---|
//! | `/` | 200, links to the three stories below, in this order, then to the article's three URLs |
//! | `/story.html` | 200, a long generated story (the original) |
//! | `/story-print.html` | 200, the same story with its own navigation, a dated line with a visitor counter and a link, and a footer (a near-duplicate: its simhash is within 3 bits of the original's); the one page linking to [`COPIES_BEHIND_NEAR_DUPLICATE`] |
//! | `/other.html` | 200, another story of the same length, with the print page's navigation and footer (not a duplicate) |
//! | [`COPIES_BEHIND_NEAR_DUPLICATE`] | 200; only the near-duplicate links here, so a crawler never asks for it |
//! | [`COPIES_CANONICAL_COPIES`] | 200, the article (the only page with [`COPIES_CANONICAL_WORD`]), with a `<link rel="canonical">` naming [`COPIES_CANONICAL`] |
//! | [`COPIES_CANONICAL`] | 200, the same article, naming itself as canonical; its URL is longer than either copy's |

use warp::reply::Response;

use crate::reply::{html, not_found, page, text};
use crate::words::{Rng, paragraph};

/// The original and its near-duplicate, in crawl order.
pub const COPIES_NEAR_PAIR: (&str, &str) = ("/story.html", "/story-print.html");
/// A different page with the same boilerplate as the near-duplicate.
pub const COPIES_OTHER: &str = "/other.html";
/// Linked from the near-duplicate only: a crawler that does not follow duplicates never
/// requests it.
pub const COPIES_BEHIND_NEAR_DUPLICATE: &str = "/only-from-the-copy.html";

/// The URL the article's copies name as `rel=canonical` (and the article names itself).
pub const COPIES_CANONICAL: &str = "/article/long-canonical-name";
/// Two shorter URLs serving the same article.
pub const COPIES_CANONICAL_COPIES: (&str, &str) = ("/a/7", "/print/7");
/// A word only the article has.
pub const COPIES_CANONICAL_WORD: &str = "bladderwrack";

/// Answers one request to `copies.test`.
pub(crate) fn respond(path: &str) -> Response {
    let (copy, print) = COPIES_CANONICAL_COPIES;
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(
            200,
            page(
                "Copies",
                &format!(
                    "<ul><li><a href=\"{}\">The story</a></li><li><a href=\"{}\">Printable</a></li>\
                     <li><a href=\"{COPIES_OTHER}\">Another story</a></li>\
                     <li><a href=\"{copy}\">Article</a></li><li><a href=\"{print}\">Article (print)</a></li>\
                     <li><a href=\"{COPIES_CANONICAL}\">Article (canonical)</a></li></ul>",
                    COPIES_NEAR_PAIR.0, COPIES_NEAR_PAIR.1
                ),
            ),
        ),
        "/story.html" => html(200, page("The marsh story", &story(1))),
        "/story-print.html" => html(
            200,
            page(
                "The marsh story (print)",
                &format!(
                    "{}<p>Printed 2026-11-23 at 10:41 for visitor 5321. \
                     <a href=\"{COPIES_BEHIND_NEAR_DUPLICATE}\">More from this edition</a></p>{}{}",
                    boilerplate_nav(),
                    story(1),
                    boilerplate_footer()
                ),
            ),
        ),
        COPIES_OTHER => html(
            200,
            page(
                "Another story",
                &format!("{}{}{}", boilerplate_nav(), story(2), boilerplate_footer()),
            ),
        ),
        COPIES_BEHIND_NEAR_DUPLICATE => html(200, page("Behind the copy", "<p>Unreachable.</p>")),
        _ if path == copy || path == print || path == COPIES_CANONICAL => html(200, article()),
        _ => not_found(),
    }
}

/// The article every URL of [`COPIES_CANONICAL_COPIES`] and [`COPIES_CANONICAL`] serves.
fn article() -> String {
    page(
        "Wrack lines",
        &format!(
            "<p>After the storm the {COPIES_CANONICAL_WORD} lay in long lines along the upper \
             beach, and the turnstones worked through it for sandhoppers.</p>"
        ),
    )
    .replacen(
        "</head>",
        &format!("<link rel=\"canonical\" href=\"{COPIES_CANONICAL}\">\n</head>"),
        1,
    )
}

/// Forty paragraphs of generated prose (about 3,000 words).
fn story(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    (0..40)
        .map(|_| format!("<p>{}</p>\n", paragraph(&mut rng, 6)))
        .collect()
}

fn boilerplate_nav() -> &'static str {
    "<nav><a href=\"/\">Home</a> Printer friendly edition with large type and no images</nav>"
}

fn boilerplate_footer() -> &'static str {
    "<footer>Copyright the marsh society. All rights reserved. Printed copies may be shared.</footer>"
}
