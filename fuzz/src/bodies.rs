//! The bodies of the fuzz targets: one plain function per parser that reads the web or a
//! user, taking the fuzzer's bytes and asserting the laws that are cheap to check (above
//! all: no panic). A panic here is a bug in the parser, never in the fuzzer.
//!
//! Two callers share this file: the cargo-fuzz targets in `fuzz/fuzz_targets/` (through the
//! `sift_fuzz` library) and the end-to-end test binary (`tests/e2e/fuzz_corpus.rs`, which
//! includes it with `#[path]`), which runs every committed corpus file through the same
//! body on each `cargo test --workspace`, without building libFuzzer.

use std::collections::HashSet;
use std::path::Path;

use crawler::sitemap::{self, SitemapEntries, SitemapLimits};
use robots::{MAX_ROBOTS_BYTES, Refusal, RobotsPolicy, RobotsRules};
use shared::CanonicalUrl;
use shared::html::{PageReader, StartTag};
use url::Url;

/// The product token every body reads robots rules and META tags for.
const AGENT: &str = "siftbot";

/// A target's body: the input, read as its parser reads the web or a user.
pub type Body = fn(&[u8]);

/// Every target: its name (the folder under `fuzz/corpus/` and the file under
/// `fuzz/fuzz_targets/`) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("robots", robots),
    ("html", html),
    ("extract", extract),
    ("url", url),
    ("sitemap", sitemap),
    ("charset", charset),
    ("query", query),
    ("config", config),
    ("image", image),
    ("warc", warc),
];

/// The page every relative link is resolved against.
fn page_url() -> Url {
    Url::parse("https://example.test/dir/page.html?x=1").expect("a fixed, valid URL")
}

/// Splits the input at its first NUL: `(head, tail)`, or `("", data)` without one. Targets
/// with two inputs (a header and a body, an agent and a body) read them this way, so a
/// corpus file stays a readable text file.
fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (&[], data),
    }
}

/// robots.txt (the `robots` crate): the input is `agent NUL body` (or a body alone, for our
/// token), its first 500 KiB read as UTF-8 (lossily: the crawler's charset decoding is the
/// `charset` target's), parsed, then asked about fixed paths and paths made of the file's own
/// lines. Laws: `allows` is `refusal().is_none()`; a refusal quotes a line that exists;
/// `/robots.txt` is always allowed.
pub fn robots(data: &[u8]) {
    let (agent, data) = split_nul(data);
    let agent = match String::from_utf8_lossy(agent) {
        agent if agent.is_empty() => AGENT.into(),
        agent => agent,
    };
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_ROBOTS_BYTES)]);
    let policy = RobotsPolicy::Rules(RobotsRules::parse(&text, &agent));
    let lines = data.split(|&b| b == b'\n' || b == b'\r').count();
    let own_paths = data
        .split(|&b| b == b'\n' || b == b'\r')
        .filter_map(|line| {
            let value = line.splitn(2, |&b| b == b':').nth(1)?;
            let value = String::from_utf8_lossy(value);
            let value = value.trim();
            value.starts_with('/').then(|| value.to_string())
        })
        .take(16);
    let fixed = ["/", "/a", "/a/b.html?c=d", "/private/x", "/%7Efoo", "/$*"];
    for path in fixed.iter().map(|s| s.to_string()).chain(own_paths) {
        let refusal = policy.refusal(&path);
        assert_eq!(policy.allows(&path), refusal.is_none(), "{path}");
        if let Some(Refusal::Rule(source)) = refusal {
            assert!(
                source.line >= 1 && source.line as usize <= lines,
                "{source:?}"
            );
        }
    }
    assert!(policy.allows("/robots.txt"));
    let _ = policy.crawl_delay();
}

/// Records what the tokenizer hands over and checks it as it comes.
#[derive(Default)]
struct Reader {
    texts: usize,
    tags: usize,
}

impl PageReader for Reader {
    fn wants_text(&self) -> bool {
        // Alternate, so both the skipping and the decoding paths run.
        self.tags % 3 != 1
    }

    fn text(&mut self, text: &str) {
        assert!(!text.contains('\0'), "a NUL in text: {text:?}");
        self.texts += 1;
    }

    fn start(&mut self, tag: &StartTag<'_>) {
        let name = tag.name();
        assert!(!name.is_empty(), "a start tag without a name");
        assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "{name}");
        let mut seen = HashSet::new();
        for (attr, _value) in tag.attrs() {
            assert!(!attr.bytes().any(|b| b.is_ascii_uppercase()), "{attr}");
            assert!(seen.insert(attr), "duplicate attribute {attr} on {name}");
        }
        self.tags += 1;
    }

    fn end(&mut self, name: &str) {
        assert!(!name.bytes().any(|b| b.is_ascii_uppercase()), "{name}");
        self.tags += 1;
    }
}

/// The HTML tokenizer (`shared::html`). Laws: tag and attribute names are lowercase,
/// attributes are not duplicated, text has no NUL (a `&#13;` may give a CR, as in
/// browsers).
pub fn html(data: &[u8]) {
    let page = String::from_utf8_lossy(data);
    let _ = shared::html::read(&page, Reader::default());
}

/// Link extraction (`crawler::extract`), and the robots META and `X-Robots-Tag` readers.
/// Laws: at most `MAX_LINKS` links; every link target, the canonical and the refresh target
/// are canonical URLs that canonicalize to themselves.
pub fn extract(data: &[u8]) {
    let page = String::from_utf8_lossy(data);
    let base = page_url();
    let extracted = crawler::extract::extract(&page, &base, AGENT);
    assert!(extracted.links.len() <= crawler::extract::MAX_LINKS);
    for link in &extracted.links {
        assert_canonical(link.target.as_str());
    }
    for url in [&extracted.canonical, &extracted.refresh_to]
        .into_iter()
        .flatten()
    {
        assert_canonical(url);
    }
    let headers = vec![("link".to_string(), page.chars().take(512).collect())];
    if let Some(url) = crawler::extract::canonical_with_header(None, &headers, &base) {
        assert_canonical(&url);
    }
    let mut robots = extracted.robots;
    let short: String = page.chars().take(256).collect();
    crawler::extract::apply_directives(&mut robots, &short);
    crawler::extract::apply_robots_header(&mut robots, &short, AGENT);
}

/// Asserts that `url` is a canonical URL: it parses and canonicalizes to itself.
fn assert_canonical(url: &str) {
    match CanonicalUrl::parse(url) {
        Ok(again) => assert_eq!(again.as_str(), url, "canonical form is not a fixed point"),
        Err(error) => panic!("canonical URL {url:?} does not parse again: {error}"),
    }
}

/// URL canonicalization (`shared::url`): the input as an absolute URL and as a link on a
/// page. Laws: canonicalization is idempotent; the result is at most `MAX_URL_LEN` bytes;
/// its path and query are what robots rules match, as `robots_path` gives them.
pub fn url(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let base = page_url();
    let parsed = [CanonicalUrl::parse(text), CanonicalUrl::join(&base, text)];
    for canonical in parsed.into_iter().flatten() {
        let url = canonical.as_str();
        assert!(url.len() <= shared::url::MAX_URL_LEN, "{url}");
        assert_canonical(url);
        let robots = shared::url::robots_path(url);
        assert_eq!(robots.as_deref(), Ok(canonical.path_and_query()), "{url}");
        let stripped = canonical.without_params(|key| key.starts_with('a'));
        assert_canonical(stripped.as_str());
    }
    let _ = shared::url::robots_path(text);
    let _ = shared::url::normalize_percent(text);
}

/// Sitemaps (`crawler::sitemap`): XML, plain text and gzip, with the crawler's limits. Laws:
/// no more entries than the limit; every entry is an absolute http(s) URL.
pub fn sitemap(data: &[u8]) {
    let limits = SitemapLimits::default();
    let Ok(parsed) = sitemap::parse(data, &limits) else {
        return;
    };
    assert!(parsed.entries.len() <= limits.max_urls);
    let urls: Vec<&Url> = match &parsed.entries {
        SitemapEntries::Pages(pages) => pages.iter().map(|p| &p.url).collect(),
        SitemapEntries::Sitemaps(maps) => maps.iter().map(|m| &m.url).collect(),
    };
    for url in urls {
        assert!(matches!(url.scheme(), "http" | "https"), "{url}");
    }
    if let SitemapEntries::Pages(pages) = &parsed.entries {
        for priority in pages.iter().filter_map(|p| p.priority) {
            assert!((0.0..=1.0).contains(&priority), "priority {priority}");
        }
    }
}

/// Charset sniffing (`crawler::charset`): the input is `Content-Type NUL body` (or a body
/// alone). Laws: `decode` is `decode_body`'s text; a BOM is named only when the body starts
/// with one, and is dropped.
pub fn charset(data: &[u8]) {
    let (content_type, body) = split_nul(data);
    let content_type = String::from_utf8_lossy(content_type);
    let decoded = crawler::charset::decode_body(body, &content_type);
    assert_eq!(decoded.text, crawler::charset::decode(body, &content_type));
    if decoded.source == crawler::charset::CharsetSource::Bom {
        let boms: [&[u8]; 3] = [b"\xEF\xBB\xBF", b"\xFF\xFE", b"\xFE\xFF"];
        assert!(boms.iter().any(|bom| body.starts_with(bom)));
        assert!(!decoded.text.starts_with('\u{feff}') || body.len() > 3);
    }
}

/// The query parser (`gateway::UserQuery`): the input is what a user typed, cut at a limit the
/// first byte picks. Laws: the query shown back is at most the limit; no panic.
pub fn query(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let max_len = [0, 1, 7, 64, 512, 2048][usize::from(first) % 6];
    let raw = String::from_utf8_lossy(rest);
    let query = gateway::UserQuery::parse(&raw, max_len);
    assert!(
        query.shown.len() <= max_len,
        "{} > {max_len}",
        query.shown.len()
    );
    let _ = query.is_empty();
    let _ = query.can_match_partially();
    let _ = query.only_plain_words();
}

/// Config files (`shared::config`): the input as the text of a TOML file, read and then
/// validated. Law: the error a program prints is one line.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.toml");
    match shared::config::RawConfig::parse(text, path) {
        Ok(raw) => {
            if let Err(error) = raw.validate() {
                let _ = error.to_string();
            }
        }
        Err(error) => {
            let line = shared::one_line_error(&error);
            assert!(!line.contains('\n'), "error on more than one line: {line}");
        }
    }
}

/// The image reader (`image_reader::read_image`): the input is an image body, read with
/// smaller limits than the crawler's so the fuzzer stays fast. Laws: no panic; a size is
/// within the absurd side; a thumbnail comes only with a size, of the sniffed format, and
/// fits the side; a JPEG quality is 1-100.
pub fn image(data: &[u8]) {
    use image_reader::{ABSURD_SIDE, ImageLimits, read_image};
    let limits = ImageLimits {
        max_pixels: 1 << 22,
        max_alloc: 64 << 20,
        ..ImageLimits::default()
    };
    let reading = read_image(data, None, &limits);
    assert_eq!(reading.byte_size, data.len() as u64);
    if let Ok(facts) = &reading.facts {
        assert_eq!(Some(facts.format), reading.format);
        assert!((1..=ABSURD_SIDE).contains(&facts.width));
        assert!((1..=ABSURD_SIDE).contains(&facts.height));
        assert!(facts.jpeg_quality.is_none_or(|q| (1..=100).contains(&q)));
    }
    if let Ok(thumbnail) = &reading.thumbnail {
        assert!(reading.facts.is_ok());
        assert!((1..=limits.thumb_side).contains(&thumbnail.width));
        assert!((1..=limits.thumb_side).contains(&thumbnail.height));
        assert!(thumbnail.jpeg.starts_with(&[0xFF, 0xD8, 0xFF]));
    }
}

/// The WARC record reader (`warc::RecordReader`): the input is a plain WARC stream, read with
/// a 4 KiB block limit so the fuzzer meets records over it. Laws: no panic; each record or
/// damage starts past the one before, inside the input (so the reading ends); a record's
/// block is within the limit and as long as its `Content-Length` says; once ended, the
/// reading stays ended.
pub fn warc(data: &[u8]) {
    use warc::{Next, RecordReader};
    const LIMIT: u64 = 4096;
    let mut reader = RecordReader::new(data, LIMIT);
    let mut last = None;
    loop {
        let (offset, next) = reader.read_next().expect("reading memory does not fail");
        assert!(offset <= data.len() as u64);
        let record = match next {
            Next::End => break,
            Next::Damaged(_) => None,
            Next::Record(record) => Some(record),
        };
        assert!(
            last.is_none_or(|before| offset > before),
            "{offset} after {last:?}"
        );
        last = Some(offset);
        if let Some(record) = record {
            assert!(record.block.len() as u64 <= LIMIT);
            let length = record.header.get("Content-Length");
            let length = length.and_then(|value| value.trim().parse::<u64>().ok());
            assert_eq!(length, Some(record.block.len() as u64));
        }
    }
    assert!(matches!(reader.read_next(), Ok((_, Next::End))));
}
