//! What the crawler reads out of a page: links with anchor text, title, description, robots
//! META directives, the `rel=canonical` URL and a fingerprint of the visible text.
//!
//! The canonical URL is the `href` of the first `<link>` in `<head>` whose `rel` tokens
//! (case-insensitive) include `canonical`, resolved and canonicalized as links are; a
//! canonical link in `<body>` is ignored (as search engines do: user content could put one
//! there). When the HTML names none (or none that is a crawlable URL),
//! [`canonical_with_header`] reads an HTTP `Link: <url>; rel="canonical"` header.
//!
//! Broken HTML is not an error: the parser recovers as browsers do and extraction returns what
//! it could read.

use crate::CanonicalUrl;
use crate::dates::DeclaredDates;
use crate::record::RobotsDirectives;
use crate::url::UrlError;
use url::Url;
use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use crate::simhash;

mod scan;

/// Most links kept from one page: a bound on what one (hostile) page can add, above the
/// largest real index pages (the Rust docs' `core/all.html` has 26,000 links, their x86 and
/// aarch64 intrinsics indexes 6,600-8,700; a cap of 5,000 lost 3,400 pages of them).
pub const MAX_LINKS: usize = 50_000;
/// Longest anchor text kept, in characters.
const MAX_ANCHOR_CHARS: usize = 200;
/// Longest title or description kept, in characters.
const MAX_TITLE_CHARS: usize = 500;

/// What a page says about itself and where it links.
#[derive(Debug, Default)]
pub struct Extracted {
    /// `<title>`, whitespace collapsed.
    pub title: String,
    /// `<meta name="description">`.
    pub description: String,
    /// `<meta name="keywords">`.
    pub keywords: String,
    /// `<meta name="revisit-after">` in seconds ("7 days", "2 weeks", "14").
    pub revisit_after_secs: Option<u64>,
    /// The target of `<meta http-equiv="refresh" content="N; url=...">`, canonical: the page
    /// is a redirect (whatever `N`; a refresh to the page itself is no redirect). A refresh
    /// inside `<noscript>` or `<template>` is none: its URL is one of [`Extracted::links`].
    pub refresh_to: Option<String>,
    /// Directives from `<meta name="robots">` and `<meta name="OUR-TOKEN">`.
    pub robots: RobotsDirectives,
    /// The target of the first `<link rel="canonical">` in `<head>`, canonical (`None` when
    /// there is none or it is no crawlable URL: not http(s), unparsable, too long).
    pub canonical: Option<String>,
    /// Links, canonical, deduplicated by (target, anchor), in document order; none to the
    /// page itself.
    pub links: Vec<Link>,
    /// xxh3-64 of the whitespace-normalized visible text.
    pub text_hash: u64,
    /// Bytes of that visible text (its words joined by single spaces): how much text the page
    /// shows, which `render = "auto"` and `crawler explain` compare between a page and its
    /// render.
    pub text_bytes: usize,
    /// Simhash of the main text (navigation, page header and footer, sidebars left out),
    /// when it is long enough to have one: near-duplicate detection.
    pub simhash: Option<u64>,
    /// Links left out because their URL is over [`crate::url::MAX_URL_LEN`] bytes.
    pub too_long_links: usize,
    /// The images the page shows (`<img>`, `<picture>`, `og:image`, links to image files),
    /// one per URL, in document order.
    pub images: Vec<ShownImage>,
    /// The dates the page declares (JSON-LD, `article:` meta, `<time>` in the content):
    /// [`crate::dates::PageDates::decide`] makes its dates of them.
    pub dates: DeclaredDates,
}

/// An image a page shows, and how it shows it.
#[derive(Debug)]
pub struct ShownImage {
    /// Its URL.
    pub target: CanonicalUrl,
    /// Its `alt` text (a linked image file's anchor text), whitespace collapsed.
    pub alt: String,
    /// Its `title`, whitespace collapsed.
    pub title: String,
    /// The words written around it: up to [`CONTEXT_WORDS`] before and after.
    pub context: String,
}

/// Words of a page's text kept from each side of an image.
pub const CONTEXT_WORDS: usize = 12;

/// A link of a page, its target parsed once (the crawl queues it without reading it again).
#[derive(Debug)]
pub struct Link {
    /// Where it leads.
    pub target: CanonicalUrl,
    /// Its anchor text, whitespace collapsed (an image link's `alt`).
    pub anchor: String,
    /// `rel` says `nofollow`, `ugc` or `sponsored`, or the page's robots META `nofollow`.
    pub nofollow: bool,
}

/// Extracts from `html`, fetched from `page_url`; `agent` is our robots token.
pub fn extract(html: &str, page_url: &Url, agent: &str) -> Extracted {
    let scanned = scan::scan(html);

    let base = scanned
        .base_href
        .as_deref()
        .and_then(|href| page_url.join(href.trim()).ok())
        .unwrap_or_else(|| page_url.clone());

    let title = scanned
        .title
        .as_deref()
        .map(|t| collapse(t, MAX_TITLE_CHARS));

    let mut robots = RobotsDirectives::default();
    let (mut description, mut keywords) = (String::new(), String::new());
    let (mut revisit_after_secs, mut refresh_to) = (None, None);
    // A refresh inside `<noscript>` sends only browsers without scripts elsewhere (a
    // "please enable JavaScript" page, often on every page of a site): its URL is a link of
    // the page, never the page's redirect.
    let mut fallback_refreshes = Vec::new();
    for meta in &scanned.metas {
        let content = meta.content.as_str();
        if let Some(equiv) = &meta.http_equiv {
            let refresh = equiv.trim().eq_ignore_ascii_case("refresh");
            if refresh && meta.in_fallback {
                fallback_refreshes.extend(refresh_target(content).map(|href| scan::RawLink {
                    href: href.to_string(),
                    ..Default::default()
                }));
            } else if refresh && refresh_to.is_none() {
                refresh_to = refresh_target(content)
                    .and_then(|target| CanonicalUrl::join(&base, target).ok())
                    .map(String::from)
                    .filter(|target| target != page_url.as_str());
            }
            continue;
        }
        let name = meta.name.as_deref().unwrap_or_default().trim();
        if name.eq_ignore_ascii_case("robots") || name.eq_ignore_ascii_case(agent) {
            apply_directives(&mut robots, content);
        } else if name.eq_ignore_ascii_case("description") && description.is_empty() {
            description = collapse(content, MAX_TITLE_CHARS);
        } else if name.eq_ignore_ascii_case("keywords") && keywords.is_empty() {
            keywords = collapse(content, MAX_TITLE_CHARS);
        } else if name.eq_ignore_ascii_case("revisit-after") {
            revisit_after_secs = revisit_after_secs.or_else(|| parse_revisit_after(content));
        }
    }

    let canonical = scanned
        .canonical_href
        .as_deref()
        .and_then(|href| CanonicalUrl::join(&base, href).ok())
        .map(String::from);

    let mut links = Vec::new();
    // A link is dropped when one with the same target, anchor and nofollow came before it:
    // their fingerprints are kept, not copies of the strings.
    let mut seen = std::collections::HashSet::new();
    let mut too_long = 0usize;
    // A link back to the page itself leads nowhere new and is no vote for it: dropped, before
    // the limit counts it. Most are fragments (`href="#section"`, resolved against the page
    // when no `<base>` moves it): a fifth of the Rust docs' links, 50,000 line numbers on one
    // source page.
    let own = CanonicalUrl::from_url(page_url.clone()).ok();
    let fragments_are_own = base == *page_url;
    for link in scanned.links.into_iter().chain(fallback_refreshes) {
        if fragments_are_own && link.href.trim().starts_with('#') {
            continue;
        }
        if links.len() >= MAX_LINKS {
            tracing::info!(page = %page_url, limit = MAX_LINKS, "links after the limit not followed");
            break;
        }
        let target = match CanonicalUrl::join(&base, &link.href) {
            Ok(target) if own.as_ref() == Some(&target) => continue,
            Ok(target) => target,
            Err(UrlError::TooLong(_)) => {
                too_long += 1;
                continue;
            }
            Err(_) => continue,
        };
        let nofollow = robots.nofollow
            || ["nofollow", "ugc", "sponsored"]
                .iter()
                .any(|token| has_rel(&link.rel, token));
        let mut anchor = collapse(&link.text, MAX_ANCHOR_CHARS);
        if anchor.is_empty() {
            // An image link: its alt text is the anchor.
            anchor = link
                .alt
                .as_deref()
                .map(|alt| collapse(alt, MAX_ANCHOR_CHARS))
                .unwrap_or_default();
        }
        if seen.insert(link_fingerprint(target.as_str(), &anchor, nofollow)) {
            links.push(Link {
                target,
                anchor,
                nofollow,
            });
        }
    }

    if scanned.links_dropped > 0 {
        tracing::info!(page = %page_url, links = scanned.links_dropped, "links past the reading limit not read");
    }
    if too_long > 0 {
        // A classic trap (a session id appended on every hop); counted by the crawl.
        tracing::debug!(
            page = %page_url,
            links = too_long,
            limit = crate::url::MAX_URL_LEN,
            "links not followed: URL too long"
        );
    }
    let images = shown_images(&scanned.images, &links, &scanned.visible, &base);
    Extracted {
        images,
        dates: scanned.dates,
        title: title.unwrap_or_default(),
        description,
        keywords,
        revisit_after_secs,
        refresh_to,
        robots,
        canonical,
        links,
        text_hash: xxh3_64(scanned.visible.as_bytes()),
        text_bytes: scanned.visible.len(),
        simhash: simhash::simhash(&scanned.main),
        too_long_links: too_long,
    }
}

/// The images a page shows: its image elements, then its links to image files (named by
/// their file extension), each URL once.
fn shown_images(
    raw: &[scan::RawImage],
    links: &[Link],
    visible: &str,
    base: &Url,
) -> Vec<ShownImage> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for image in raw {
        let Ok(target) = CanonicalUrl::join(base, image.src.trim()) else {
            continue;
        };
        if seen.insert(xxh3_64(target.as_str().as_bytes())) {
            out.push(ShownImage {
                target,
                alt: collapse(&image.alt, MAX_ANCHOR_CHARS),
                title: collapse(&image.title, MAX_ANCHOR_CHARS),
                context: words_around(visible, image.at),
            });
        }
    }
    for link in links
        .iter()
        .filter(|link| names_an_image_file(&link.target))
    {
        if out.len() >= scan::MAX_RAW_IMAGES {
            break;
        }
        if seen.insert(xxh3_64(link.target.as_str().as_bytes())) {
            out.push(ShownImage {
                target: link.target.clone(),
                alt: link.anchor.clone(),
                title: String::new(),
                context: String::new(),
            });
        }
    }
    out
}

/// Whether a URL's path ends in an image file's extension.
fn names_an_image_file(url: &CanonicalUrl) -> bool {
    const EXTENSIONS: [&str; 9] = [
        ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".svg", ".bmp", ".ico",
    ];
    let path = url.as_url().path().as_bytes();
    EXTENSIONS.iter().any(|ext| {
        path.len() >= ext.len()
            && path[path.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes())
    })
}

/// Up to [`CONTEXT_WORDS`] words of `text` each side of byte offset `at`.
fn words_around(text: &str, at: usize) -> String {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let (before, after) = text.split_at(at);
    let mut words: Vec<&str> = before
        .split_whitespace()
        .rev()
        .take(CONTEXT_WORDS)
        .collect();
    words.reverse();
    words.extend(after.split_whitespace().take(CONTEXT_WORDS));
    collapse(&words.join(" "), MAX_ANCHOR_CHARS * 2)
}

/// A link's identity for dropping repeats: 128 bits of its target, anchor and nofollow (a
/// target, percent-encoded, holds no NUL to blur where it ends).
fn link_fingerprint(target: &str, anchor: &str, nofollow: bool) -> u128 {
    let mut hasher = Xxh3::new();
    hasher.update(target.as_bytes());
    hasher.update(&[0, u8::from(nofollow)]);
    hasher.update(anchor.as_bytes());
    hasher.digest128()
}

/// Whether a `rel` attribute (a space-separated token list) holds `token`, ignoring case.
fn has_rel(rel: &str, token: &str) -> bool {
    rel.split_ascii_whitespace()
        .any(|r| r.eq_ignore_ascii_case(token))
}

/// Bytes of one `Link` header value read when looking for a canonical URL.
const MAX_LINK_HEADER_BYTES: usize = 8 * 1024;
/// Links of one `Link` header value read when looking for a canonical URL.
const MAX_HEADER_LINKS: usize = 32;

/// The page's canonical URL: `html_canonical` (see [`Extracted::canonical`]), else the
/// target of the first `rel="canonical"` link in its `Link` response headers (`headers` as
/// stored: names lowercase), resolved against `page_url` and canonicalized.
pub fn canonical_with_header(
    html_canonical: Option<String>,
    headers: &[(String, String)],
    page_url: &Url,
) -> Option<String> {
    html_canonical.or_else(|| {
        let target = headers
            .iter()
            .filter(|(name, _)| name == "link")
            .find_map(|(_, value)| link_header_canonical(value))?;
        CanonicalUrl::join(page_url, target).ok().map(String::from)
    })
}

/// The URL of the first `rel="canonical"` link of a `Link` header value (RFC 8288:
/// `<url>; param=value; ..., <url>; ...`). Read conservatively: the first
/// [`MAX_LINK_HEADER_BYTES`] bytes and [`MAX_HEADER_LINKS`] links, and anything malformed
/// ends the search.
fn link_header_canonical(value: &str) -> Option<&str> {
    let mut end = value.len().min(MAX_LINK_HEADER_BYTES);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let mut rest = &value[..end];
    for _ in 0..MAX_HEADER_LINKS {
        let open = rest.trim_start().strip_prefix('<')?;
        let (target, after) = open.split_once('>')?;
        // The parameters run to the next comma outside double quotes.
        let mut quoted = false;
        let params_end = after
            .char_indices()
            .find(|&(_, c)| {
                if c == '"' {
                    quoted = !quoted;
                }
                c == ',' && !quoted
            })
            .map_or(after.len(), |(i, _)| i);
        let canonical = after[..params_end].split(';').any(|param| {
            param.split_once('=').is_some_and(|(name, value)| {
                name.trim().eq_ignore_ascii_case("rel")
                    && has_rel(value.trim().trim_matches('"'), "canonical")
            })
        });
        if canonical {
            return Some(target.trim());
        }
        rest = after.get(params_end + 1..)?;
    }
    None
}

/// Applies a robots directive list (META content or `X-Robots-Tag`), separated by commas
/// (or, leniently, spaces). Directives only ever add restrictions, so across several tags,
/// headers and groups (`robots` and our own token) the most restrictive reading wins:
/// `index`, `follow` and `all` lift nothing another tag asked for.
pub fn apply_directives(robots: &mut RobotsDirectives, content: &str) {
    for directive in content.split([',', ' ', '\t', '\n', '\r']) {
        match directive.trim().to_ascii_lowercase().as_str() {
            "noindex" => robots.noindex = true,
            "nofollow" => robots.nofollow = true,
            "none" => {
                robots.noindex = true;
                robots.nofollow = true;
            }
            "noarchive" => robots.noarchive = true,
            "nosnippet" => robots.nosnippet = true,
            // The defaults, and directives for features we do not have (images, snippet
            // length, unavailable_after ...).
            _ => {}
        }
    }
}

/// The URL of a refresh `content` such as `0; url=/next`, `5;URL='next.html'` or `0, url=x`.
fn refresh_target(content: &str) -> Option<&str> {
    let (_delay, rest) = content.split_once([';', ','])?;
    let rest = rest.trim_start();
    let value = match rest.get(..4) {
        Some(prefix) if prefix.eq_ignore_ascii_case("url=") => &rest[4..],
        _ => rest,
    };
    let value = value.trim().trim_matches(['"', '\'']).trim();
    (!value.is_empty()).then_some(value)
}

/// `revisit-after` values: a number with an optional unit (`7 days`, `2 weeks`, `1 month`,
/// `12 hours`); a bare number counts days.
fn parse_revisit_after(content: &str) -> Option<u64> {
    let content = content.trim().to_ascii_lowercase();
    let digits_end = content
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(content.len());
    let count: u64 = content[..digits_end].parse().ok()?;
    let unit = content[digits_end..].trim().trim_end_matches('.');
    let unit_secs = match unit.trim_end_matches('s') {
        "" | "day" | "d" => 86_400,
        "hour" | "h" => 3_600,
        "week" | "w" => 7 * 86_400,
        "month" => 30 * 86_400,
        "year" => 365 * 86_400,
        _ => return None,
    };
    count.checked_mul(unit_secs).filter(|&secs| secs > 0)
}

/// Applies `X-Robots-Tag` header values: unprefixed ones apply to every robot, `agent:`-
/// prefixed ones only when the agent is ours.
pub fn apply_robots_header(robots: &mut RobotsDirectives, value: &str, agent: &str) {
    let directives = match value.split_once(':') {
        Some((prefix, rest)) if !prefix.contains(',') && is_agent_prefix(prefix) => {
            if !prefix.trim().eq_ignore_ascii_case(agent) {
                return;
            }
            rest
        }
        _ => value,
    };
    apply_directives(robots, directives);
}

/// `unavailable_after: <date>` is a directive with a colon, not an agent prefix.
fn is_agent_prefix(prefix: &str) -> bool {
    let prefix = prefix.trim().to_ascii_lowercase();
    !prefix.is_empty() && prefix != "unavailable_after" && !prefix.contains(' ')
}

fn collapse(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > max_chars * 4 {
            break;
        }
    }
    out.chars().take(max_chars).collect()
}

/// What the crawl reads of one HTML document, in two figures: how many links it keeps and
/// how much text the page shows. `crawler explain` and searchd's `/explain` give them for a
/// page as served and after its scripts ran, so a user sees what the scripts added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reading {
    /// Links, as the crawl keeps them (distinct, none to the page itself).
    pub links: usize,
    /// Bytes of visible text, words joined by single spaces.
    pub text_bytes: usize,
}

impl Reading {
    /// Reads `html` as the page at `url`. The robots token only decides which META tags are
    /// obeyed, never how many links or words there are: any token reads the same.
    pub fn of(html: &str, url: &CanonicalUrl) -> Self {
        let extracted = extract(html, url.as_url(), "sift");
        Self {
            links: extracted.links.len(),
            text_bytes: extracted.text_bytes,
        }
    }

    /// `12 links, 3400 bytes of text`.
    pub fn describe(self) -> String {
        format!("{} links, {} bytes of text", self.links, self.text_bytes)
    }

    /// What `after` adds to this reading: `(+3 links, +103 bytes of text)`.
    pub fn added(self, after: Reading) -> String {
        let signed = |count: usize| i64::try_from(count).unwrap_or(i64::MAX);
        format!(
            "({:+} links, {:+} bytes of text)",
            signed(after.links) - signed(self.links),
            signed(after.text_bytes) - signed(self.text_bytes)
        )
    }
}

#[cfg(test)]
mod tests;
