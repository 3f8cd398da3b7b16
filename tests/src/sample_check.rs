//! Checks that `data/site` and the `SAMPLE_*` constants agree, by walking the files the way
//! a polite `siftbot` crawls: robots.txt, `<base href>`, robots META, `rel="nofollow"`, and
//! no links followed from a duplicate.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use shared::CanonicalUrl;

use super::*;
use crate::words::tokens;

const ORIGIN: &str = "http://sample.test";

/// One start tag: its name and attributes (double-quoted values, as the site writes them).
#[derive(Debug)]
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
}

impl Tag {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The start tags of a page, skipping what is inside `<script>` and `<style>`.
fn tags(html: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find('>') else { break };
        let inside = &rest[..close];
        rest = &rest[close + 1..];
        let (name, attrs) = inside
            .split_once(char::is_whitespace)
            .unwrap_or((inside, ""));
        let name = name.to_ascii_lowercase();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        if name == "script" || name == "style" {
            let end = format!("</{name}>");
            rest = rest.find(&end).map_or("", |at| &rest[at..]);
        }
        out.push(Tag {
            name,
            attrs: attributes(attrs),
        });
    }
    out
}

fn attributes(mut text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        text = text.trim_start();
        let end = text
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(text.len());
        if end == 0 {
            break;
        }
        let name = text[..end].to_ascii_lowercase();
        text = &text[end..];
        let value = match text.strip_prefix("=\"") {
            Some(quoted) => {
                let close = quoted.find('"').expect("attribute values are closed");
                text = &quoted[close + 1..];
                quoted[..close].to_string()
            }
            None => String::new(),
        };
        out.push((name, value));
    }
    out
}

/// The `Disallow` prefixes that apply to `siftbot`: its own group, else the `*` group.
fn siftbot_disallows(robots: &str) -> Vec<String> {
    let mut groups: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut reading_agents = false;
    for line in robots.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let Some((field, value)) = line.split_once(':') else {
            continue;
        };
        let (field, value) = (field.trim().to_ascii_lowercase(), value.trim().to_string());
        if field == "user-agent" {
            if !reading_agents {
                groups.push((Vec::new(), Vec::new()));
            }
            reading_agents = true;
            groups
                .last_mut()
                .expect("a group")
                .0
                .push(value.to_ascii_lowercase());
        } else {
            reading_agents = false;
            if field == "disallow" && !value.is_empty() {
                groups
                    .last_mut()
                    .expect("rules follow a user-agent")
                    .1
                    .push(value);
            }
        }
    }
    let find = |agent: &str| {
        groups
            .iter()
            .find(|(agents, _)| agents.iter().any(|a| a == agent))
    };
    find("siftbot")
        .or_else(|| find("*"))
        .map(|(_, rules)| rules.clone())
        .unwrap_or_default()
}

fn read(path_and_query: &str) -> Option<String> {
    let path = path_and_query.split('?').next().unwrap_or_default();
    let file = sample_site_dir().join(shared::url::site_file(path)?);
    std::fs::read_to_string(file).ok()
}

/// A followable or nofollow link found on a page.
struct Link {
    from: String,
    to: String,
    nofollow: bool,
}

/// What the walk found.
struct Walk {
    fetched: Vec<String>,
    stored: BTreeSet<String>,
    links: Vec<Link>,
    disallowed_seen: BTreeSet<String>,
}

fn walk() -> Walk {
    let robots = std::fs::read_to_string(sample_site_dir().join("robots.txt")).expect("robots.txt");
    let disallows = siftbot_disallows(&robots);
    let mut walk = Walk {
        fetched: Vec::new(),
        stored: BTreeSet::new(),
        links: Vec::new(),
        disallowed_seen: BTreeSet::new(),
    };
    let mut queue = VecDeque::from(["/".to_string()]);
    let mut seen = BTreeSet::from(["/".to_string()]);
    let mut contents = HashMap::new();
    while let Some(path) = queue.pop_front() {
        if disallows.iter().any(|rule| path.starts_with(rule.as_str())) {
            walk.disallowed_seen.insert(path);
            continue;
        }
        walk.fetched.push(path.clone());
        let html =
            read(&path).unwrap_or_else(|| panic!("{path} is linked but has no file (a 404)"));
        walk.stored.insert(path.clone());
        let duplicate = contents.insert(html.clone(), path.clone()).is_some();
        let page = tags(&html);
        let meta_nofollow = page.iter().any(|t| {
            t.name == "meta"
                && t.attr("name") == Some("robots")
                && t.attr("content").is_some_and(|c| c.contains("nofollow"))
        });
        let page_url = CanonicalUrl::parse(&format!("{ORIGIN}{path}")).expect("page URL");
        let base = page
            .iter()
            .find(|t| t.name == "base")
            .and_then(|t| t.attr("href"))
            .map(|href| CanonicalUrl::join(page_url.as_url(), href).expect("base href resolves"))
            .unwrap_or(page_url);
        for tag in page.iter().filter(|t| t.name == "a") {
            let Some(href) = tag.attr("href") else {
                continue;
            };
            let Ok(target) = CanonicalUrl::join(base.as_url(), href) else {
                continue;
            };
            if target.origin() != ORIGIN {
                continue;
            }
            let to = target.path_and_query().to_string();
            let nofollow = meta_nofollow
                || tag
                    .attr("rel")
                    .is_some_and(|r| r.split(' ').any(|r| r == "nofollow"));
            if !nofollow && !duplicate && seen.insert(to.clone()) {
                queue.push_back(to.clone());
            }
            walk.links.push(Link {
                from: path.clone(),
                to,
                nofollow,
            });
        }
    }
    walk
}

#[test]
fn a_polite_walk_stores_exactly_the_expected_urls() {
    let walk = walk();
    let expected: BTreeSet<String> = SAMPLE_STORED.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        expected.len(),
        SAMPLE_STORED.len(),
        "no repeats in SAMPLE_STORED"
    );
    assert_eq!(walk.stored, expected);
    for never in SAMPLE_NEVER_FETCHED {
        assert!(!walk.fetched.iter().any(|p| p == never), "{never} fetched");
        assert!(read(never).is_some(), "{never} exists");
        let linked_from: BTreeSet<&str> = walk
            .links
            .iter()
            .filter(|l| l.to == *never)
            .map(|l| l.from.as_str())
            .collect();
        assert_eq!(
            linked_from.len(),
            1,
            "{never} is linked from one page: {linked_from:?}"
        );
        assert!(
            walk.links
                .iter()
                .filter(|l| l.to == *never)
                .all(|l| l.nofollow),
            "{never} only via nofollow"
        );
    }
    assert!(
        walk.links
            .iter()
            .any(|l| l.to == SAMPLE_BEHIND_NOFOLLOW && l.from == SAMPLE_NOFOLLOW)
    );
    let disallowed: BTreeSet<String> = SAMPLE_DISALLOWED.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        walk.disallowed_seen, disallowed,
        "every disallowed page is linked, and none is fetched"
    );
    for path in SAMPLE_DISALLOWED {
        assert!(read(path).is_some(), "{path} exists");
    }
    assert!(walk.stored.contains(SAMPLE_WITH_QUERY));
}

#[test]
fn special_pages_are_linked_as_documented() {
    let walk = walk();
    let sources = |target: &str| -> BTreeSet<String> {
        walk.links
            .iter()
            .filter(|l| l.to == target && !l.nofollow && l.from != target)
            .map(|l| l.from.clone())
            .collect()
    };
    assert_eq!(
        sources(SAMPLE_BEHIND_NOINDEX),
        BTreeSet::from([SAMPLE_NOINDEX.to_string()])
    );
    assert_eq!(
        sources(SAMPLE_ONLY_VIA_BASE),
        BTreeSet::from([SAMPLE_BASE_HREF.to_string()])
    );
    let base_page = read(SAMPLE_BASE_HREF).expect("base page");
    assert!(
        base_page.contains("<base href=\"../tides/\">")
            && base_page.contains("href=\"salt-marsh.html\"")
    );

    let (popular, obscure) = SAMPLE_RANKED_PAIR;
    let (popular_in, obscure_in) = (sources(popular), sources(obscure));
    assert!(popular_in.len() >= 13, "{popular} in-links: {popular_in:?}");
    assert_eq!(obscure_in.len(), 1, "{obscure} in-links: {obscure_in:?}");
    assert!(
        !walk
            .links
            .iter()
            .any(|l| l.to == SAMPLE_WITH_QUERY.split('?').next().unwrap_or_default())
    );

    for (path, directive) in [(SAMPLE_NOINDEX, "noindex"), (SAMPLE_NOFOLLOW, "nofollow")] {
        let html = read(path).expect("page");
        assert!(
            html.contains(&format!("<meta name=\"robots\" content=\"{directive}\">")),
            "{path}"
        );
    }
}

#[test]
fn marker_words_are_where_the_tests_expect_them() {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut pending = vec![sample_site_dir()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("site dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                let relative = path
                    .strip_prefix(sample_site_dir())
                    .expect("under the site")
                    .to_string_lossy();
                let url = format!("/{}", relative.replace('\\', "/")).replace("index.html", "");
                files.insert(url, std::fs::read_to_string(&path).expect("utf-8 page"));
            }
        }
    }
    assert!((35..=50).contains(&files.len()), "{} pages", files.len());
    let holders = |word: &str| -> Vec<&str> {
        files
            .iter()
            .filter(|(_, html)| html.contains(word))
            .map(|(path, _)| path.as_str())
            .collect()
    };
    assert_eq!(holders(SAMPLE_NOINDEX_WORD), vec![SAMPLE_NOINDEX]);
    assert_eq!(
        holders(SAMPLE_BEHIND_NOINDEX_WORD),
        vec![SAMPLE_BEHIND_NOINDEX]
    );
    let (first, second) = SAMPLE_DUPLICATES;
    assert_eq!(holders(SAMPLE_DUPLICATE_WORD), vec![second, first]);
    assert_eq!(files[first], files[second], "byte-identical duplicates");
    let (popular, obscure) = SAMPLE_RANKED_PAIR;
    assert_eq!(holders(SAMPLE_RANKED_WORD), vec![popular, obscure]);

    // Equal text relevance: the same number of tokens overall and in every paragraph and
    // heading, the word once, at the same token position.
    let (a, b) = (&files[popular], &files[obscure]);
    let (ta, tb) = (tokens(a), tokens(b));
    assert_eq!(ta.len(), tb.len());
    let position = |t: &[&str]| t.iter().position(|w| *w == SAMPLE_RANKED_WORD);
    assert_eq!(position(&ta), position(&tb));
    assert_eq!(ta.iter().filter(|w| **w == SAMPLE_RANKED_WORD).count(), 1);
    let blocks = |html: &str| -> Vec<usize> {
        let mut counts = Vec::new();
        for tag in ["title", "h1", "h2", "p", "li"] {
            for block in html.split(&format!("<{tag}")).skip(1) {
                let block = block.split(&format!("</{tag}>")).next().unwrap_or(block);
                counts.push(tokens(&without_tags(block)).len());
            }
        }
        counts
    };
    assert_eq!(blocks(a), blocks(b));
}

/// Text with its markup removed (what a reader sees of a fragment).
fn without_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[test]
fn the_server_maps_paths_to_files() {
    for (path, file) in [
        ("/", Some("index.html")),
        ("/birds/", Some("birds/index.html")),
        ("/birds/tern.html", Some("birds/tern.html")),
        ("/%62irds/tern.html", Some("birds/tern.html")),
        ("/birds/../robots.txt", None),
        ("/birds//tern.html", None),
        ("/%2e%2e/Cargo.toml", None),
        ("/bad%zz", None),
    ] {
        assert_eq!(
            shared::url::site_file(path),
            file.map(PathBuf::from),
            "{path}"
        );
    }
}

#[test]
fn the_site_readme_lists_the_stored_urls() {
    let readme =
        std::fs::read_to_string(sample_site_dir().join("README.md")).expect("data/site/README.md");
    let section = readme
        .split("## What a crawl must store")
        .nth(1)
        .expect("the section");
    let listed: Vec<&str> = section
        .split("```")
        .nth(1)
        .expect("a code block")
        .lines()
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(listed, SAMPLE_STORED);
    assert!(section.contains(&format!("**{} URLs**", SAMPLE_STORED.len())));
}
