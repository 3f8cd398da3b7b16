//! What the crawler reads out of a page: links with anchor text, title, description, robots
//! META directives and a fingerprint of the visible text.
//!
//! Broken HTML is not an error: the parser recovers as browsers do and extraction returns what
//! it could read.

use scraper::{ElementRef, Html, Node, Selector};
use shared::CanonicalUrl;
use shared::record::{Outlink, RobotsDirectives};
use shared::url::UrlError;
use url::Url;
use xxhash_rust::xxh3::xxh3_64;

use shared::simhash;

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
    /// is a redirect (whatever `N`; a refresh to the page itself is no redirect).
    pub refresh_to: Option<String>,
    /// Directives from `<meta name="robots">` and `<meta name="OUR-TOKEN">`.
    pub robots: RobotsDirectives,
    /// Links, canonical, deduplicated by (target, anchor), in document order.
    pub links: Vec<Outlink>,
    /// xxh3-64 of the whitespace-normalized visible text.
    pub text_hash: u64,
    /// Simhash of the main text (navigation, page header and footer, sidebars left out),
    /// when it is long enough to have one: near-duplicate detection.
    pub simhash: Option<u64>,
    /// Links left out because their URL is over [`shared::url::MAX_URL_LEN`] bytes.
    pub too_long_links: usize,
}

struct Selectors {
    base: Selector,
    links: Selector,
    title: Selector,
    meta: Selector,
}

fn selectors() -> &'static Selectors {
    static SELECTORS: std::sync::OnceLock<Selectors> = std::sync::OnceLock::new();
    SELECTORS.get_or_init(|| {
        let parse = |s| Selector::parse(s).expect("static selector is valid");
        Selectors {
            base: parse("base[href]"),
            links: parse("a[href], area[href], frame[src], iframe[src]"),
            title: parse("title"),
            meta: parse("meta[content]"),
        }
    })
}

/// Extracts from `html`, fetched from `page_url`; `agent` is our robots token.
pub fn extract(html: &str, page_url: &Url, agent: &str) -> Extracted {
    let document = Html::parse_document(html);
    let s = selectors();

    let base = document
        .select(&s.base)
        .next()
        .and_then(|base| base.value().attr("href"))
        .and_then(|href| page_url.join(href.trim()).ok())
        .unwrap_or_else(|| page_url.clone());

    let title = document
        .select(&s.title)
        .next()
        .map(|t| collapse(&t.text().collect::<String>(), MAX_TITLE_CHARS));

    let mut robots = RobotsDirectives::default();
    let (mut description, mut keywords) = (String::new(), String::new());
    let (mut revisit_after_secs, mut refresh_to) = (None, None);
    for meta in document.select(&s.meta) {
        let content = meta.value().attr("content").unwrap_or_default();
        if let Some(equiv) = meta.value().attr("http-equiv") {
            if equiv.trim().eq_ignore_ascii_case("refresh") && refresh_to.is_none() {
                refresh_to = refresh_target(content)
                    .and_then(|target| CanonicalUrl::join(&base, target).ok())
                    .map(String::from)
                    .filter(|target| target != page_url.as_str());
            }
            continue;
        }
        let name = meta.value().attr("name").unwrap_or_default().trim();
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

    let mut links = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut too_long = 0usize;
    for element in document.select(&s.links) {
        if links.len() >= MAX_LINKS {
            tracing::info!(page = %page_url, limit = MAX_LINKS, "links after the limit not followed");
            break;
        }
        let attr = if matches!(element.value().name(), "frame" | "iframe") {
            "src"
        } else {
            "href"
        };
        let Some(href) = element.value().attr(attr) else {
            continue;
        };
        let target = match CanonicalUrl::join(&base, href) {
            Ok(target) => target,
            Err(UrlError::TooLong(_)) => {
                too_long += 1;
                continue;
            }
            Err(_) => continue,
        };
        let rel = element
            .value()
            .attr("rel")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let nofollow = robots.nofollow
            || rel
                .split_ascii_whitespace()
                .any(|r| matches!(r, "nofollow" | "ugc" | "sponsored"));
        let anchor = anchor_text(element);
        if seen.insert((target.as_str().to_string(), anchor.clone(), nofollow)) {
            links.push(Outlink {
                target: target.into(),
                anchor,
                nofollow,
            });
        }
    }

    let text = page_text(&document);
    if too_long > 0 {
        // A classic trap (a session id appended on every hop); counted by the crawl.
        tracing::debug!(
            page = %page_url,
            links = too_long,
            limit = shared::url::MAX_URL_LEN,
            "links not followed: URL too long"
        );
    }
    Extracted {
        title: title.unwrap_or_default(),
        description,
        keywords,
        revisit_after_secs,
        refresh_to,
        robots,
        links,
        text_hash: xxh3_64(text.visible.as_bytes()),
        simhash: simhash::simhash(&text.main),
        too_long_links: too_long,
    }
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

fn anchor_text(element: ElementRef<'_>) -> String {
    let text = collapse(&element.text().collect::<String>(), MAX_ANCHOR_CHARS);
    if !text.is_empty() {
        return text;
    }
    // An image link: its alt text is the anchor.
    element
        .descendants()
        .filter_map(ElementRef::wrap)
        .find_map(|e| e.value().attr("alt").or_else(|| e.value().attr("title")))
        .map(|alt| collapse(alt, MAX_ANCHOR_CHARS))
        .unwrap_or_default()
}

/// The text of a page, whitespace collapsed.
struct PageText {
    /// What a reader sees: scripts, styles and templates left out.
    visible: String,
    /// The visible text without navigation, page header and footer, and sidebars.
    main: String,
}

fn page_text(document: &Html) -> PageText {
    let mut text = PageText {
        visible: String::new(),
        main: String::new(),
    };
    for node in document.root_element().descendants() {
        let Node::Text(words) = node.value() else {
            continue;
        };
        let mut boilerplate = false;
        for ancestor in node.ancestors() {
            match ancestor.value().as_element().map(|e| e.name()) {
                Some("script" | "style" | "noscript" | "template" | "head") => break,
                Some("nav" | "header" | "footer" | "aside") => boilerplate = true,
                Some("html") | None => {
                    push_words(&mut text.visible, words);
                    if !boilerplate {
                        push_words(&mut text.main, words);
                    }
                    break;
                }
                Some(_) => {}
            }
        }
    }
    text
}

fn push_words(out: &mut String, text: &str) {
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(html: &str) -> Extracted {
        extract(
            html,
            &Url::parse("http://a.test/dir/page.html").unwrap(),
            "siftbot",
        )
    }

    #[test]
    fn a_big_index_page_keeps_its_links_up_to_the_limit() {
        let links = |n: usize| -> String {
            (0..n)
                .map(|i| format!("<a href=\"/item/{i}.html\">item {i}</a>\n"))
                .collect()
        };
        // As big as the Rust docs' core/all.html: every link kept.
        assert_eq!(page(&links(26_109)).links.len(), 26_109);
        assert_eq!(page(&links(MAX_LINKS + 7)).links.len(), MAX_LINKS);
    }

    #[test]
    fn links_resolve_against_base_and_page() {
        let got = page(
            r#"<html><head><title> My
               Page </title></head><body>
               <a href="other.html">Other   page</a>
               <a href="../up.html#frag"><img alt="Up"></a>
               <a href="mailto:x@y.z">mail</a>
               <a href="/x" rel="nofollow ugc">paid</a>
               <a href="javascript:void(0)">js</a>
               </body></html>"#,
        );
        assert_eq!(got.title, "My Page");
        let links: Vec<_> = got
            .links
            .iter()
            .map(|l| (l.target.as_str(), l.anchor.as_str(), l.nofollow))
            .collect();
        assert_eq!(
            links,
            vec![
                ("http://a.test/dir/other.html", "Other page", false),
                ("http://a.test/up.html", "Up", false),
                ("http://a.test/x", "paid", true),
            ]
        );

        let based = page(r#"<head><base href="http://b.test/root/"></head><a href="x.html">x</a>"#);
        assert_eq!(based.links[0].target, "http://b.test/root/x.html");
    }

    #[test]
    fn robots_meta() {
        let got = page(
            r#"<meta name="ROBOTS" content="NoIndex"><meta name="siftbot" content="nofollow"><meta name="otherbot" content="noarchive"><a href="a">a</a>"#,
        );
        assert!(got.robots.noindex && got.robots.nofollow && !got.robots.noarchive);
        assert!(
            got.links[0].nofollow,
            "a nofollow page's links are nofollow"
        );
        assert!(
            page(r#"<meta name="robots" content="none">"#)
                .robots
                .noindex
        );

        let mut robots = RobotsDirectives::default();
        apply_robots_header(&mut robots, "otherbot: noindex", "siftbot");
        assert!(!robots.noindex);
        apply_robots_header(&mut robots, "SiftBot: noarchive, nosnippet", "siftbot");
        apply_robots_header(&mut robots, "unavailable_after: 2030-01-01", "siftbot");
        assert!(robots.noarchive && robots.nosnippet && !robots.noindex);
    }

    #[test]
    fn robots_meta_most_restrictive_wins() {
        // Our own group never lifts what `robots` asked, nor the other way round.
        let got = page(
            r#"<meta name="robots" content="noindex"><meta name="SIFTBOT" content="all, index, follow"><a href="a">a</a>"#,
        );
        assert!(got.robots.noindex && !got.robots.nofollow);
        assert!(
            !got.links[0].nofollow,
            "noindex alone never stops link-following"
        );
        let got = page(
            r#"<meta name="robots" content="all"><meta name="siftbot" content="NOFOLLOW noarchive">"#,
        );
        assert!(got.robots.nofollow && got.robots.noarchive && !got.robots.noindex);
        let got = page(r#"<meta name="robots" content="index,follow">"#);
        assert_eq!(got.robots, RobotsDirectives::default());
    }

    #[test]
    fn keywords_revisit_after_and_refresh() {
        let got = page(
            r#"<head><meta name="Keywords" content="tides,  shore birds"><meta name="revisit-after" content="7 days">
               <meta http-equiv="Refresh" content="0; URL='../moved.html'"></head>"#,
        );
        assert_eq!(got.keywords, "tides, shore birds");
        assert_eq!(got.revisit_after_secs, Some(7 * 86_400));
        assert_eq!(got.refresh_to.as_deref(), Some("http://a.test/moved.html"));

        for (content, secs) in [
            ("14", Some(14 * 86_400)),
            ("2 Weeks", Some(14 * 86_400)),
            ("1 month", Some(30 * 86_400)),
            ("12 hours", Some(12 * 3_600)),
            ("soon", None),
            ("0 days", None),
            ("99999999999999999999 years", None),
        ] {
            assert_eq!(parse_revisit_after(content), secs, "{content}");
        }
        for (content, target) in [
            ("0;url=next.html", Some("next.html")),
            ("5, URL=\"next.html\"", Some("next.html")),
            ("3; /plain", Some("/plain")),
            ("30", None),
            ("0; url=", None),
        ] {
            assert_eq!(refresh_target(content), target, "{content}");
        }
        let self_refresh = page(r#"<meta http-equiv="refresh" content="30; url=page.html">"#);
        assert_eq!(self_refresh.refresh_to, None, "a reload is no redirect");
    }

    #[test]
    fn text_hash_ignores_markup_and_scripts() {
        let a = page("<p>Hello   <b>world</b></p><script>var x = 1;</script>");
        let b = page("<div>Hello\nworld</div><script>var y = 2;</script>");
        assert_eq!(a.text_hash, b.text_hash);
        assert_ne!(a.text_hash, page("<p>Hello there</p>").text_hash);
    }

    #[test]
    fn broken_html_is_read_as_far_as_possible() {
        let got = page("<p><a href='x'>x<a href=\"y\">y</div></p>\u{0}<b><i>");
        assert!(got.links.iter().any(|l| l.target.ends_with("/y")));
    }
}
