//! `sample.test`: the static sample site in `data/site/`, and what a crawl of it must do.
//!
//! The constants below are the expectations the end-to-end tests assert; `data/site/README.md`
//! explains each special page. The unit tests at the bottom walk the files as a polite
//! `siftbot` would (robots.txt, `<base href>`, robots META, `rel="nofollow"`, duplicates) and
//! check that the constants and the site agree.

use std::path::{Path, PathBuf};

use warp::reply::Response;

use crate::reply::{HTML_UTF8, TEXT_UTF8, bytes, not_found, redirect, text};

/// Every URL (path and query) a polite crawl by `siftbot` from `/` stores: each allowed page
/// reachable through followable links, including the one behind the noindex page and both
/// copies of the duplicate; not the nofollow targets, not `/private/` or `/drafts/`.
pub const SAMPLE_STORED: &[&str] = &[
    "/",
    "/about.html",
    "/glossary.html",
    "/birds/",
    "/birds/oystercatcher.html",
    "/birds/sanderling.html",
    "/birds/turnstone.html",
    "/birds/snowy-plover.html",
    "/birds/whimbrel.html",
    "/birds/cormorant.html",
    "/birds/brown-pelican.html",
    "/birds/western-gull.html",
    "/birds/tern.html",
    "/tidepools/",
    "/tidepools/anemone.html",
    "/tidepools/ochre-sea-star.html",
    "/tidepools/hermit-crab.html",
    "/tidepools/limpet.html",
    "/tidepools/nudibranch.html",
    "/tidepools/tidepool-sculpin.html",
    "/tidepools/purple-urchin.html",
    "/tidepools/gooseneck-barnacle.html",
    "/tidepools/chiton.html",
    "/tides/",
    "/tides/reading-tide-tables.html?station=harbor",
    "/tides/spring-and-neap.html",
    "/tides/zonation.html",
    "/tides/salt-marsh.html",
    "/guides/estuary-walk.html",
    "/field/",
    "/field/etiquette.html",
    "/field/binoculars.html",
    "/field/notebook.html",
    "/field/safety.html",
    "/articles/",
    "/articles/heron.html",
    "/articles/dunlin-flocks.html",
    "/articles/knot-stopover.html",
    "/archive/",
    "/archive/heron-copy.html",
    "/archive/winter-count-2019.html",
    "/notes/unreviewed-sightings.html",
    "/notes/marsh-wren-notes.html",
    "/notes/link-roundup.html",
];

/// Pages that exist but are linked only through nofollow (the META on
/// [`SAMPLE_NOFOLLOW`], or `rel="nofollow"`): never requested.
pub const SAMPLE_NEVER_FETCHED: &[&str] = &[SAMPLE_BEHIND_NOFOLLOW, SAMPLE_REL_NOFOLLOW_TARGET];

/// Pages that exist and are linked but robots.txt disallows for `siftbot`: never requested.
pub const SAMPLE_DISALLOWED: &[&str] = &[
    "/private/staff-roster.html",
    "/private/permit-applications.html",
    "/drafts/winter-survey.html",
];

/// The page with `<meta name="robots" content="noindex">`: stored, never indexed.
pub const SAMPLE_NOINDEX: &str = "/notes/unreviewed-sightings.html";
/// A word only [`SAMPLE_NOINDEX`] holds: a search for it finds nothing.
pub const SAMPLE_NOINDEX_WORD: &str = "zanzibarnoindexmarker";
/// The page linked only from [`SAMPLE_NOINDEX`]: crawled and indexed all the same.
pub const SAMPLE_BEHIND_NOINDEX: &str = "/notes/marsh-wren-notes.html";
/// A word only [`SAMPLE_BEHIND_NOINDEX`] holds.
pub const SAMPLE_BEHIND_NOINDEX_WORD: &str = "pickleweedbehindmarker";

/// The page with `<meta name="robots" content="nofollow">`: stored, links not followed.
pub const SAMPLE_NOFOLLOW: &str = "/notes/link-roundup.html";
/// The page only [`SAMPLE_NOFOLLOW`] links to.
pub const SAMPLE_BEHIND_NOFOLLOW: &str = "/notes/orphan-behind-nofollow.html";
/// The page linked once, with `rel="nofollow"` (from `/field/binoculars.html`).
pub const SAMPLE_REL_NOFOLLOW_TARGET: &str = "/field/sponsored-gear.html";

/// Two URLs with byte-identical content; both are stored, one is indexed (the shorter).
pub const SAMPLE_DUPLICATES: (&str, &str) = ("/articles/heron.html", "/archive/heron-copy.html");
/// A word only the two [`SAMPLE_DUPLICATES`] hold.
pub const SAMPLE_DUPLICATE_WORD: &str = "heronrydupmarker";

/// `(popular, obscure)`: equal text relevance for [`SAMPLE_RANKED_WORD`] (same token count
/// in every field, the word once in the same position), but the first has in-links from 13
/// distinct pages and the second from one.
pub const SAMPLE_RANKED_PAIR: (&str, &str) = (
    "/articles/dunlin-flocks.html",
    "/articles/knot-stopover.html",
);
/// The word only the two [`SAMPLE_RANKED_PAIR`] pages hold.
pub const SAMPLE_RANKED_WORD: &str = "sandpiperrank";

/// The page with `<base href="../tides/">`: its relative links resolve under `/tides/`.
pub const SAMPLE_BASE_HREF: &str = "/guides/estuary-walk.html";
/// The page linked only from [`SAMPLE_BASE_HREF`], through the base (ignoring the base would
/// request `/guides/salt-marsh.html`, a 404).
pub const SAMPLE_ONLY_VIA_BASE: &str = "/tides/salt-marsh.html";
/// The one URL with a query string; it is always linked with this query (and sometimes a
/// fragment), never without.
pub const SAMPLE_WITH_QUERY: &str = "/tides/reading-tide-tables.html?station=harbor";

/// `<workspace>/data/site`, the sample site's files.
pub fn sample_site_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .unwrap_or(manifest)
        .join("data")
        .join("site")
}

/// Answers one request to `sample.test` from the files under `site`: `/dir/` serves
/// `dir/index.html`, `/dir` redirects to `/dir/`, anything else missing is a 404. The query
/// string is ignored.
pub(crate) async fn respond(site: &Path, path: &str) -> Response {
    let Some(relative) = shared::url::site_file(path) else {
        return not_found();
    };
    let file = site.join(&relative);
    match tokio::fs::metadata(&file).await {
        Ok(meta) if meta.is_dir() && !path.ends_with('/') => redirect(301, &format!("{path}/")),
        Ok(meta) if meta.is_file() => match tokio::fs::read(&file).await {
            Ok(body) => bytes(200, content_type(&file), body),
            Err(e) => text(500, format!("cannot read {}: {e}\n", relative.display())),
        },
        _ => not_found(),
    }
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => HTML_UTF8,
        Some("txt") => TEXT_UTF8,
        Some("css") => "text/css; charset=utf-8",
        Some("md") => "text/markdown; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
#[path = "sample_check.rs"]
mod check;
