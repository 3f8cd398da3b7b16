//! `ranked.test`: a generated site where text relevance is equal and only links differ.
//!
//! - `/` links to the reading lists `/hub/1.html` ..= `/hub/10.html`.
//! - `/hub/{k}.html` links to the field notes `/doc/1.html` ..= `/doc/{k}.html`.
//! - `/doc/{i}.html` holds [`RANKED_WORD`] exactly once, in text of exactly the same token
//!   count as every other note (title, heading and body), and links only back to `/`.
//!
//! So note `i` has `RANKED_DOCS + 1 - i` in-links from distinct pages: `/doc/1.html` the
//! most, `/doc/10.html` one. A search for [`RANKED_WORD`] must rank the notes in
//! [`ranked_docs_by_in_links`] order, and with the link boost off they score the same.

use warp::reply::Response;

use crate::reply::{html, not_found, page, text};
use crate::words::{ADJECTIVES, NOUNS, Rng, fixed_paragraph};

/// The word every field note of `ranked.test` holds once, and no other page.
pub const RANKED_WORD: &str = "beaconrank";

/// How many field notes (and reading lists) `ranked.test` has.
pub const RANKED_DOCS: usize = 10;

/// Every page of `ranked.test`, as paths: `/`, the reading lists, the field notes.
pub fn ranked_site_paths() -> Vec<String> {
    let mut paths = vec!["/".to_string()];
    paths.extend((1..=RANKED_DOCS).map(hub_path));
    paths.extend((1..=RANKED_DOCS).map(doc_path));
    paths
}

/// The field notes, most in-links first: the expected ranking for [`RANKED_WORD`].
pub fn ranked_docs_by_in_links() -> Vec<String> {
    (1..=RANKED_DOCS).map(doc_path).collect()
}

fn hub_path(k: usize) -> String {
    format!("/hub/{k}.html")
}

fn doc_path(i: usize) -> String {
    format!("/doc/{i}.html")
}

/// `N` out of `/{prefix}/N.html`, when `N` is in `1..=RANKED_DOCS` and written canonically.
fn number_in(path: &str, prefix: &str) -> Option<usize> {
    let digits = path.strip_prefix(prefix)?.strip_suffix(".html")?;
    let n: usize = digits.parse().ok()?;
    ((1..=RANKED_DOCS).contains(&n) && n.to_string() == digits).then_some(n)
}

/// Answers one request to `ranked.test`.
pub(crate) fn respond(path: &str) -> Response {
    if path == "/robots.txt" {
        return text(200, "User-agent: *\nDisallow:\n");
    }
    if path == "/" {
        return html(200, root());
    }
    if let Some(k) = number_in(path, "/hub/") {
        return html(200, hub(k));
    }
    if let Some(i) = number_in(path, "/doc/") {
        return html(200, doc(i));
    }
    not_found()
}

fn root() -> String {
    let lists: String = (1..=RANKED_DOCS)
        .map(|k| {
            format!(
                "<li><a href=\"{}\">Reading list {k}</a></li>\n",
                hub_path(k)
            )
        })
        .collect();
    page(
        "Lantern Hill field notes",
        &format!(
            "<p>The Lantern Hill society keeps its members' field notes in numbered reading lists. \
             Each list adds one more note to the one before it.</p>\n<ul>\n{lists}</ul>"
        ),
    )
}

fn hub(k: usize) -> String {
    let notes: String = (1..=k)
        .map(|i| format!("<li><a href=\"{}\">Field note {i}</a></li>\n", doc_path(i)))
        .collect();
    let mut rng = Rng::new(1_000 + k as u64);
    page(
        &format!("Reading list {k}"),
        &format!(
            "<p>Reading list {k} gathers the first {k} field notes of the society. {}</p>\n<ul>\n{notes}</ul>\n\
             <p><a href=\"/\">All reading lists</a></p>",
            fixed_paragraph(&mut rng, &[1, 6])
        ),
    )
}

/// Templates of the two body paragraphs, the same for every note so lengths are equal.
const DOC_FIRST: [usize; 3] = [0, 2, 8];
const DOC_SECOND: [usize; 2] = [4, 9];
const DOC_THIRD: [usize; 1] = [11];

fn doc(i: usize) -> String {
    let mut rng = Rng::new(i as u64);
    let adjective = rng.pick(ADJECTIVES);
    let noun = rng.pick(NOUNS);
    let first = fixed_paragraph(&mut rng, &DOC_FIRST);
    let second = fixed_paragraph(&mut rng, &DOC_SECOND);
    let third = fixed_paragraph(&mut rng, &DOC_THIRD);
    page(
        &format!("Field note {i} on the {adjective} {noun}"),
        &format!(
            "<p>{first}</p>\n<p>{second} This note belongs to the {RANKED_WORD} series. {third}</p>\n\
             <p><a href=\"/\">All reading lists</a></p>"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::tokens;

    #[test]
    fn notes_have_equal_token_counts_and_the_word_once() {
        let counts: Vec<usize> = (1..=RANKED_DOCS).map(|i| tokens(&doc(i)).len()).collect();
        assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
        for i in 1..=RANKED_DOCS {
            assert_eq!(
                tokens(&doc(i))
                    .iter()
                    .filter(|t| **t == RANKED_WORD)
                    .count(),
                1
            );
            assert_ne!(doc(i), doc(i % RANKED_DOCS + 1), "notes differ");
        }
        assert!(
            !root().contains(RANKED_WORD)
                && !(1..=RANKED_DOCS).any(|k| hub(k).contains(RANKED_WORD))
        );
    }

    #[test]
    fn in_links_decrease_along_the_expected_order() {
        let in_links = |target: &str| {
            (1..=RANKED_DOCS)
                .filter(|&k| hub(k).contains(&format!("href=\"{target}\"")))
                .count()
        };
        let expected: Vec<usize> = (1..=RANKED_DOCS).rev().collect();
        let got: Vec<usize> = ranked_docs_by_in_links()
            .iter()
            .map(|p| in_links(p))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn paths_route() {
        for path in ranked_site_paths() {
            assert_eq!(respond(&path).status(), 200, "{path}");
        }
        for path in [
            "/doc/0.html",
            "/doc/01.html",
            "/doc/11.html",
            "/hub/x.html",
            "/nope",
        ] {
            assert_eq!(respond(path).status(), 404, "{path}");
        }
    }
}
