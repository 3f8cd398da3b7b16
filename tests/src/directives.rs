//! `meta.test`: robots directives in every place a page can give them: `X-Robots-Tag`
//! headers (for every robot, for ours, for another), META tags combined, and `rel` on single
//! links.
//!
//! | path | directive | what a crawler must do |
//! |---|---|---|
//! | `/` | none | links to every page below |
//! | `/header-noindex.html` | `X-Robots-Tag: noindex` | store as noindex, follow its link |
//! | `/header-ours.html` | `X-Robots-Tag: siftbot: nofollow` | not follow its link |
//! | `/header-other.html` | `X-Robots-Tag: otherbot: noindex, nofollow` | ignore: not for us |
//! | `/meta-combined.html` | `robots` says `all`, `siftbot` says `noindex` | noindex (the most restrictive wins), follow |
//! | `/meta-none.html` | `<meta name="robots" content="none">` | noindex and nofollow |
//! | `/rel-links.html` | links with `rel="ugc"`, `rel="sponsored"`, `rel="nofollow"` and none | follow only the plain link |
//!
//! Each page links to `/behind-<page>`; [`META_FOLLOWED`] and [`META_NOT_FOLLOWED`] say
//! which of those a crawler reaches.

use warp::reply::Response;

use crate::reply::{html, not_found, page, text, with_header};

/// Pages whose `X-Robots-Tag` or META makes them noindex for siftbot.
pub const META_NOINDEX: &[&str] = &[
    "/header-noindex.html",
    "/meta-combined.html",
    "/meta-none.html",
];

/// Link targets a crawler must reach.
pub const META_FOLLOWED: &[&str] = &[
    "/behind-header-noindex.html",
    "/behind-header-other.html",
    "/behind-meta-combined.html",
    "/plain-target.html",
];

/// Link targets a crawler must never request.
pub const META_NOT_FOLLOWED: &[&str] = &[
    "/behind-header-ours.html",
    "/behind-meta-none.html",
    "/ugc-target.html",
    "/sponsored-target.html",
    "/nofollow-target.html",
];

/// Answers one request to `meta.test`.
pub(crate) fn respond(path: &str) -> Response {
    let behind = |name: &str, head: &str| {
        page_with_head(
            name,
            head,
            &format!("<p>See <a href=\"/behind-{name}.html\">what lies behind</a>.</p>"),
        )
    };
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => {
            let links: String = [
                "/header-noindex.html",
                "/header-ours.html",
                "/header-other.html",
                "/meta-combined.html",
                "/meta-none.html",
                "/rel-links.html",
            ]
            .iter()
            .map(|p| format!("<li><a href=\"{p}\">{p}</a></li>"))
            .collect();
            html(200, page("Directives", &format!("<ul>{links}</ul>")))
        }
        "/header-noindex.html" => with_header(
            html(200, behind("header-noindex", "")),
            "x-robots-tag",
            "noindex",
        ),
        "/header-ours.html" => with_header(
            html(200, behind("header-ours", "")),
            "x-robots-tag",
            "siftbot: nofollow",
        ),
        "/header-other.html" => with_header(
            html(200, behind("header-other", "")),
            "x-robots-tag",
            "otherbot: noindex, nofollow",
        ),
        "/meta-combined.html" => html(
            200,
            behind(
                "meta-combined",
                "<meta name=\"robots\" content=\"all\"><meta name=\"SiftBot\" content=\"noindex\">",
            ),
        ),
        "/meta-none.html" => html(
            200,
            behind("meta-none", "<meta name=\"robots\" content=\"none\">"),
        ),
        "/rel-links.html" => html(
            200,
            page(
                "Links of every kind",
                "<p><a rel=\"ugc\" href=\"/ugc-target.html\">a comment's link</a>, \
                 <a rel=\"sponsored noopener\" href=\"/sponsored-target.html\">an advert</a>, \
                 <a rel=\"NoFollow\" href=\"/nofollow-target.html\">an untrusted link</a> and \
                 <a href=\"/plain-target.html\">a plain link</a>.</p>",
            ),
        ),
        _ if path.starts_with("/behind-") || path.ends_with("-target.html") => html(
            200,
            page(&format!("Behind {path}"), "<p>Reached by a link.</p>"),
        ),
        _ => not_found(),
    }
}

/// A page with extra `<head>` markup.
fn page_with_head(title: &str, head: &str, inner: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">{head}<title>{title}</title></head>\n\
         <body><h1>{title}</h1>\n{inner}\n</body></html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_answers() {
        for path in META_NOINDEX
            .iter()
            .chain(META_FOLLOWED)
            .chain(META_NOT_FOLLOWED)
        {
            assert_eq!(respond(path).status(), 200, "{path}");
        }
        assert_eq!(
            respond("/header-ours.html").headers()["x-robots-tag"],
            "siftbot: nofollow"
        );
    }
}
