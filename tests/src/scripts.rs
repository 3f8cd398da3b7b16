//! `scripts.test`: pages whose links and text only scripts write, for crawling with
//! rendering on. Each subresource a page asks for is served, so the request log shows which
//! of them a renderer let through: robots.txt forbids `/private/`, images, fonts and
//! WebSockets are blocked by default, `/loop` asks for `/api/tick` without end and `/endless`
//! never stops running.
//!
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | `User-agent: *`, `Disallow: /private/` |
//! | `/` | static: a heading, [`SCRIPTS_STATIC_WORD`], one link ([`SCRIPTS_ENDLESS`]). Scripts add links to `/built/one` and `/built/two` and [`SCRIPTS_HOME_WORDS`]`[0]` (inline), `/built/three` and `[1]` (`/static/app.js`), `/built/four` and `[2]` (from `/api/menu.json`); they also load `/private/secret.js` and fetch `/private/data.json` (forbidden) and open a WebSocket to `/ws`. An `<img>` of `/img/pixel.png`, a stylesheet `/static/site.css`, an `@font-face` of `/fonts/face.woff2` for the body text |
//! | [`SCRIPTS_BUILT`] | `/built/one` .. `/built/four`: a script-written word each, a static link to `/` (`/built/two` also to [`SCRIPTS_LOOP`]) |
//! | [`SCRIPTS_LOOP`] | static [`SCRIPTS_LOOP_WORD`] and a link to `/`; its script fetches `/api/tick?n=N` every millisecond and sends 1000 XHRs to `/api/tick?x=N` |
//! | [`SCRIPTS_ENDLESS`] | static [`SCRIPTS_ENDLESS_WORD`], a link to [`SCRIPTS_AFTER_ENDLESS`], then `while(true){}` |
//! | [`SCRIPTS_AFTER_ENDLESS`] | a script-written [`SCRIPTS_AFTER_ENDLESS_WORD`]: rendered only if the endless page was cut off |
//! | `/static/app.js`, `/static/site.css`, `/api/menu.json`, `/api/tick` (any query) | allowed subresources |
//! | [`SCRIPTS_DISALLOWED`] | `/private/secret.js` and `/private/data.json`: would write [`SCRIPTS_FORBIDDEN_WORDS`] |
//! | [`SCRIPTS_BLOCKED_BY_DEFAULT`] | `/img/pixel.png` (a 1 x 1 PNG), `/fonts/face.woff2` (`font/woff2`, not a real font), `/ws` (404) |
//! | anything else | 404 (a browser also asks for `/favicon.ico`) |
//!
//! No word a script writes is in the bytes of the page that holds the script: scripts build
//! each one from two halves, and the paths of script-built links too, so a crawl without
//! rendering cannot find them by any reading of the HTML.

mod pages;

use std::io::Cursor;

use image::{DynamicImage, Rgb, RgbImage};
use warp::reply::Response;

use crate::reply::{bytes, html, not_found, text};

/// A page whose text only its script writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedPage {
    /// Its path on `scripts.test`.
    pub path: &'static str,
    /// The word its script writes, found nowhere else on the test web.
    pub word: &'static str,
}

/// The word in the static text of `/`.
pub const SCRIPTS_STATIC_WORD: &str = "quillmarsh";
/// The words scripts write on `/`: by its inline script, by `/static/app.js`, and from
/// `/api/menu.json`.
pub const SCRIPTS_HOME_WORDS: [&str; 3] = ["zephyrine", "larkspurian", "tamarindel"];
/// The pages only links written by the scripts of `/` reach, each with the word its own
/// script writes: `/built/one` and `/built/two` (the inline script), `/built/three`
/// (`/static/app.js`), `/built/four` (`/api/menu.json`).
pub const SCRIPTS_BUILT: [ScriptedPage; 4] = [
    ScriptedPage {
        path: "/built/one",
        word: "obsidianne",
    },
    ScriptedPage {
        path: "/built/two",
        word: "corvantic",
    },
    ScriptedPage {
        path: "/built/three",
        word: "mirelloch",
    },
    ScriptedPage {
        path: "/built/four",
        word: "quintessor",
    },
];
/// The page whose script asks for [`SCRIPTS_TICK`] without end; `/built/two` links to it.
pub const SCRIPTS_LOOP: &str = "/loop";
/// The static word of [`SCRIPTS_LOOP`].
pub const SCRIPTS_LOOP_WORD: &str = "tickerwhorl";
/// The path [`SCRIPTS_LOOP`] asks for, with `?n=N` (every millisecond) and `?x=N` (1000
/// XHRs at once).
pub const SCRIPTS_TICK: &str = "/api/tick";
/// The page whose script never ends; the one static link of `/`.
pub const SCRIPTS_ENDLESS: &str = "/endless";
/// The static word of [`SCRIPTS_ENDLESS`].
pub const SCRIPTS_ENDLESS_WORD: &str = "perpetuine";
/// The page [`SCRIPTS_ENDLESS`] links to: it must still render after the endless one.
pub const SCRIPTS_AFTER_ENDLESS: &str = "/after-endless";
/// The word the script of [`SCRIPTS_AFTER_ENDLESS`] writes.
pub const SCRIPTS_AFTER_ENDLESS_WORD: &str = "aftermoor";
/// Every word only a rendered page shows: [`SCRIPTS_HOME_WORDS`], the words of
/// [`SCRIPTS_BUILT`], and [`SCRIPTS_AFTER_ENDLESS_WORD`].
pub const SCRIPTS_WORDS_AFTER_RENDER: [&str; 8] = [
    SCRIPTS_HOME_WORDS[0],
    SCRIPTS_HOME_WORDS[1],
    SCRIPTS_HOME_WORDS[2],
    SCRIPTS_BUILT[0].word,
    SCRIPTS_BUILT[1].word,
    SCRIPTS_BUILT[2].word,
    SCRIPTS_BUILT[3].word,
    SCRIPTS_AFTER_ENDLESS_WORD,
];
/// The folder robots.txt disallows.
pub const SCRIPTS_DISALLOWED_PREFIX: &str = "/private/";
/// The subresources of `/` that robots.txt disallows: a script and the data a script fetches.
pub const SCRIPTS_DISALLOWED: [&str; 2] = ["/private/secret.js", "/private/data.json"];
/// The words [`SCRIPTS_DISALLOWED`] would write on `/` (the script's, the data's): a rendered
/// `/` that shows one fetched a forbidden path.
pub const SCRIPTS_FORBIDDEN_WORDS: [&str; 2] = ["clandestor", "hushwillow"];
/// The subresources of `/` a renderer does not fetch unless configured to: the image, the
/// font, and the WebSocket's path.
pub const SCRIPTS_BLOCKED_BY_DEFAULT: [&str; 3] = ["/img/pixel.png", "/fonts/face.woff2", "/ws"];
/// The subresources of `/` a renderer fetches: the script, the stylesheet, the menu.
pub const SCRIPTS_ALLOWED_SUBRESOURCES: [&str; 3] =
    ["/static/app.js", "/static/site.css", "/api/menu.json"];

/// `text/javascript; charset=utf-8`.
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";
/// `application/json`.
const JSON: &str = "application/json";

/// Answers one request to `scripts.test` (the query does not matter).
pub(crate) fn respond(path: &str) -> Response {
    if let Some(built) = SCRIPTS_BUILT.iter().find(|page| page.path == path) {
        return html(200, pages::built(built));
    }
    match path {
        "/robots.txt" => text(200, "User-agent: *\nDisallow: /private/\n"),
        "/" => html(200, pages::home()),
        SCRIPTS_LOOP => html(200, pages::looping()),
        SCRIPTS_ENDLESS => html(200, pages::endless()),
        SCRIPTS_AFTER_ENDLESS => html(200, pages::after_endless()),
        "/static/app.js" => bytes(200, JAVASCRIPT, pages::app_js()),
        "/static/site.css" => bytes(
            200,
            "text/css; charset=utf-8",
            "body { color: #1d2b36; background: #f4efe6; }\nh1 { letter-spacing: 0.05em; }\n",
        ),
        "/api/menu.json" => bytes(200, JSON, pages::menu_json()),
        SCRIPTS_TICK => bytes(200, JSON, "{\"tick\":true}\n"),
        "/private/secret.js" => bytes(200, JAVASCRIPT, pages::secret_js()),
        "/private/data.json" => bytes(200, JSON, pages::data_json()),
        "/img/pixel.png" => bytes(200, "image/png", pixel_png()),
        // Not a real font: a renderer that asks for it falls back to the next family.
        "/fonts/face.woff2" => bytes(200, "font/woff2", b"wOF2 not a font".to_vec()),
        _ => not_found(),
    }
}

/// A 1 x 1 PNG, made by the `image` crate's encoder.
fn pixel_png() -> Vec<u8> {
    let pixel = DynamicImage::ImageRgb8(RgbImage::from_pixel(1, 1, Rgb([29, 43, 54])));
    let mut out = Cursor::new(Vec::new());
    match pixel.write_to(&mut out, image::ImageFormat::Png) {
        Ok(()) => out.into_inner(),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
