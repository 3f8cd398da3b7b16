//! `big.test`: a deterministic generated site of [`BIG_SITE_PAGES`] pages in a link lattice.
//!
//! Page 0 is `/`, page `i > 0` is `/page/{i}.html`. Page `i` links to the next page `i + 1`,
//! to `2i + 1` and `2i + 2` (a binary tree, so every page is within 9 links of `/`), and to
//! three pseudo-random other pages; its text is a few paragraphs of generated prose, different
//! on every page (no two pages are content duplicates). robots.txt allows everything.

use warp::reply::Response;

use crate::reply::{html, not_found, page, text};
use crate::words::{ADJECTIVES, NOUNS, Rng, paragraph};

/// How many pages `big.test` has, `/` included.
pub const BIG_SITE_PAGES: usize = 300;

/// Every page of `big.test` as a path, `/` first: what a complete crawl of it stores.
pub fn big_site_paths() -> Vec<String> {
    (0..BIG_SITE_PAGES).map(path_of).collect()
}

fn path_of(i: usize) -> String {
    if i == 0 {
        "/".to_string()
    } else {
        format!("/page/{i}.html")
    }
}

/// The page number of a path, if it is one of the site's pages.
fn number_of(path: &str) -> Option<usize> {
    if path == "/" {
        return Some(0);
    }
    let digits = path.strip_prefix("/page/")?.strip_suffix(".html")?;
    let i: usize = digits.parse().ok()?;
    (i > 0 && i < BIG_SITE_PAGES && i.to_string() == digits).then_some(i)
}

/// The pages page `i` links to, in document order, without repeats or itself.
pub(crate) fn links_of(i: usize) -> Vec<usize> {
    let mut rng = Rng::new(0xB16 + i as u64);
    let mut out: Vec<usize> = Vec::with_capacity(6);
    for target in [i + 1, 2 * i + 1, 2 * i + 2] {
        if target < BIG_SITE_PAGES && !out.contains(&target) {
            out.push(target);
        }
    }
    let tree_links = out.len();
    while out.len() < tree_links + 3 {
        let target = rng.below(BIG_SITE_PAGES);
        if target != i && !out.contains(&target) {
            out.push(target);
        }
    }
    out
}

/// A page's topic, also used as the anchor text of links to it.
fn topic_of(i: usize) -> String {
    let mut rng = Rng::new(0x70B1C + i as u64);
    let adjective = rng.pick(ADJECTIVES);
    let noun = rng.pick(NOUNS);
    let mut capital = adjective.chars();
    let first = capital
        .next()
        .map(|c| c.to_ascii_uppercase())
        .unwrap_or(' ');
    format!("{first}{} {noun}", capital.as_str())
}

fn body_of(i: usize) -> String {
    let mut rng = Rng::new(i as u64);
    let topic = topic_of(i);
    let paragraphs: String = (0..3)
        .map(|_| {
            let sentences = 3 + rng.below(3);
            format!("<p>{}</p>\n", paragraph(&mut rng, sentences))
        })
        .collect();
    let links: String = links_of(i)
        .into_iter()
        .map(|j| {
            let label = if j == i + 1 { "Next" } else { "See also" };
            format!(
                "<li>{label}: <a href=\"{}\">{}, part {j}</a></li>\n",
                path_of(j),
                topic_of(j)
            )
        })
        .collect();
    page(
        &format!("{topic}, part {i}"),
        &format!(
            "<p>Part {i} of the Wayfarer's almanac, on the {}.</p>\n{paragraphs}<h2>Further reading</h2>\n<ul>\n{links}</ul>",
            topic.to_ascii_lowercase()
        ),
    )
}

/// Answers one request to `big.test`.
pub(crate) fn respond(path: &str) -> Response {
    if path == "/robots.txt" {
        return text(200, "User-agent: *\nAllow: /\n");
    }
    match number_of(path) {
        Some(i) => html(200, body_of(i)),
        None => not_found(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashSet, VecDeque};

    use super::*;

    #[test]
    fn every_page_is_reachable_within_a_few_links() {
        let mut depth = vec![usize::MAX; BIG_SITE_PAGES];
        depth[0] = 0;
        let mut queue = VecDeque::from([0]);
        while let Some(i) = queue.pop_front() {
            for j in links_of(i) {
                if depth[j] == usize::MAX {
                    depth[j] = depth[i] + 1;
                    queue.push_back(j);
                }
            }
        }
        assert!(
            depth.iter().all(|&d| d <= 9),
            "max depth {:?}",
            depth.iter().max()
        );
    }

    #[test]
    fn pages_are_distinct_linked_and_served() {
        let bodies: HashSet<String> = (0..BIG_SITE_PAGES).map(body_of).collect();
        assert_eq!(bodies.len(), BIG_SITE_PAGES, "no two pages share content");
        for i in 0..BIG_SITE_PAGES {
            let links = links_of(i);
            assert!((3..=6).contains(&links.len()), "page {i}: {links:?}");
            assert!(i + 1 == BIG_SITE_PAGES || links.contains(&(i + 1)));
        }
        let paths = big_site_paths();
        assert_eq!(paths.len(), BIG_SITE_PAGES);
        for path in &paths {
            assert_eq!(number_of(path).map(path_of).as_deref(), Some(path.as_str()));
        }
        for bad in [
            "/page/0.html",
            "/page/300.html",
            "/page/007.html",
            "/page/x.html",
            "/index.html",
        ] {
            assert_eq!(number_of(bad), None, "{bad}");
        }
    }
}
