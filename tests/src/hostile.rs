//! `hostile.test`: a page that tries to run script in every way a page can, for the browser
//! test of searchd's results and cached copies.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | allows everything |
//! | `/` | links to the two pages below |
//! | [`HOSTILE_PAGE`] | the hostile page: `<script>` in its title (as text: a title holds no markup), scripts in `<head>` and `<body>`, `<body onload>`, an `<img>` whose `onerror` fires (its source 404s), an autofocused input with `onfocus`, a `javascript:` link ([`HOSTILE_LINK_ID`]), a `<meta http-equiv="refresh">` that would reload the live page ([`HOSTILE_REFRESH`]) and a relative link ([`HOSTILE_RELATIVE_LINK_ID`]) |
//! | [`HOSTILE_CALM`] | a harmless page that holds [`HOSTILE_WORD`] too, so a search has more than one result |
//! | [`HOSTILE_MISSING_IMAGE`] | 404: the hostile image, requested by any browser that shows the page |
//!
//! Every script, if it ever ran, would set [`HOSTILE_MARKER`] on its document's `<html>` (and
//! on the top document's, when it may reach it), and request [`HOSTILE_BEACON`] from this host
//! with `?via=` naming the script. A browser showing these pages safely does none of it.
//!
//! The refresh names the page itself (with a fragment), so the crawler stores the page rather
//! than a redirect (a refresh to any other URL is one); a cached copy that obeyed it would
//! leave the copy for the live page, whose every request the test web logs.

use warp::reply::Response;

use crate::reply::{html, not_found, page, text};

/// The page that tries to run script.
pub const HOSTILE_PAGE: &str = "/kelp-wrack.html";
/// The harmless page with the same word.
pub const HOSTILE_CALM: &str = "/strand-line.html";
/// The word both pages hold, and no other page of the test web.
pub const HOSTILE_WORD: &str = "wrackscriptmarker";
/// The title of [`HOSTILE_PAGE`], as text: a search result must show it exactly like this
/// (markup there would set [`HOSTILE_MARKER`] on the results page).
pub const HOSTILE_TITLE: &str = "Kelp wrack wrackscriptmarker \
     <script>document.documentElement.setAttribute('data-pwned','title')</script>";
/// The attribute a script of [`HOSTILE_PAGE`] would set on `<html>` if it ran.
pub const HOSTILE_MARKER: &str = "data-pwned";
/// The path a script of [`HOSTILE_PAGE`] would request if it ran (with a `?via=` query).
pub const HOSTILE_BEACON: &str = "/pwned";
/// The `id` of the `javascript:` link on [`HOSTILE_PAGE`] (it targets its own frame).
pub const HOSTILE_LINK_ID: &str = "tide-chart";
/// The target of [`HOSTILE_PAGE`]'s `<meta http-equiv="refresh">`: the page itself, live
/// (relative, with a fragment: the crawler reads a refresh to the page itself as no redirect).
pub const HOSTILE_REFRESH: &str = "kelp-wrack.html#refreshed";
/// The `id` of a relative link on [`HOSTILE_PAGE`], to [`HOSTILE_CALM`]
/// (`strand-line.html`, relative to the page's folder).
pub const HOSTILE_RELATIVE_LINK_ID: &str = "strand-walk";
/// The image of [`HOSTILE_PAGE`]: it 404s, so its `onerror` handler would fire.
pub const HOSTILE_MISSING_IMAGE: &str = "/missing-kelp.png";
/// The heading of [`HOSTILE_PAGE`], to tell that its copy was really shown.
pub const HOSTILE_HEADING: &str = "Kelp wrack on the strand line";

/// Answers one request to `hostile.test`.
pub(crate) fn respond(path: &str) -> Response {
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow:\n"),
        "/" => html(
            200,
            page(
                "Wrack notes",
                &format!(
                    "<ul><li><a href=\"{HOSTILE_PAGE}\">Kelp wrack</a></li>\
                     <li><a href=\"{HOSTILE_CALM}\">The strand line</a></li></ul>"
                ),
            ),
        ),
        HOSTILE_PAGE => html(200, hostile_page()),
        HOSTILE_CALM => html(
            200,
            page(
                "The strand line",
                &format!(
                    "<p>The strand line marks the highest reach of the last tide. Walk it \
                     slowly: {HOSTILE_WORD} notes list what the sea left there.</p>"
                ),
            ),
        ),
        _ => not_found(),
    }
}

/// The JavaScript every hostile spot runs, as one expression: mark `<html>` here and at the
/// top (a cross-origin top throws, which is caught), and send a beacon to this host.
fn payload(via: &str) -> String {
    format!(
        "(function(){{document.documentElement.setAttribute('{HOSTILE_MARKER}','{via}');\
         try{{top.document.documentElement.setAttribute('{HOSTILE_MARKER}','{via}')}}catch(e){{}}\
         new Image().src='{HOSTILE_BEACON}?via={via}'}})()"
    )
}

/// The hostile page. Its title is written raw: `<title>` holds text only, so the `<script>`
/// in it is text to any HTML parser. Single quotes only inside the payloads, so they sit in
/// double-quoted attributes as they are.
fn hostile_page() -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{HOSTILE_TITLE}</title>\n\
         <meta http-equiv=\"refresh\" content=\"0; url={HOSTILE_REFRESH}\">\n<script>{head}</script>\n</head>\n\
         <body onload=\"{onload}\">\n<h1>{HOSTILE_HEADING}</h1>\n\
         <p>After a winter storm the beach is banked with kelp wrack: torn holdfasts, long \
         stipes and bladders that still pop underfoot. Sand hoppers feed in it by night and \
         plovers pick them off at dawn, so a {HOSTILE_WORD} survey counts both the wrack and the \
         birds that work it. Leave the piles where they lie; they feed the whole upper beach.</p>\n\
         <script>{body}</script>\n\
         <p><img src=\"{HOSTILE_MISSING_IMAGE}\" alt=\"a pile of kelp\" onerror=\"{onerror}\"></p>\n\
         <p><input autofocus onfocus=\"{onfocus}\" aria-label=\"notes\"></p>\n\
         <p><a id=\"{HOSTILE_LINK_ID}\" target=\"_self\" href=\"javascript:void {link}\">Open \
         the tide chart</a></p>\n\
         <p><a id=\"{HOSTILE_RELATIVE_LINK_ID}\" href=\"{calm}\">Walk the strand line</a></p>\n</body>\n</html>\n",
        head = payload("head-script"),
        onload = payload("body-onload"),
        body = payload("body-script"),
        onerror = payload("img-onerror"),
        onfocus = payload("autofocus"),
        link = payload("javascript-link"),
        calm = HOSTILE_CALM.trim_start_matches('/'),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spot_carries_the_payload() {
        let page = hostile_page();
        for via in [
            "head-script",
            "body-onload",
            "body-script",
            "img-onerror",
            "autofocus",
            "javascript-link",
        ] {
            assert!(
                page.contains(&format!("'{HOSTILE_MARKER}','{via}'")),
                "{via}"
            );
        }
        assert!(page.contains(&format!("<title>{HOSTILE_TITLE}</title>")));
        assert!(
            !payload("x").contains('"'),
            "payloads fit double-quoted attributes"
        );
    }
}
