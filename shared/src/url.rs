//! `CanonicalUrl`: the one spelling of a URL that the seen-set, the store and the index agree on.
//!
//! Rules applied (on top of the WHATWG parsing the `url` crate does, which already lowercases
//! the scheme and host, drops default ports, resolves `.` and `..`, maps IDN hosts to punycode
//! and turns an empty path into `/`):
//! - only `http` and `https` are crawlable;
//! - the fragment is dropped;
//! - percent-encoding is normalized: escapes of unreserved characters are decoded and the hex
//!   digits of the others are uppercased;
//! - URLs longer than [`MAX_URL_LEN`] bytes are refused (a classic crawler trap).
//!
//! Aliases that need server knowledge (`/index.html`, case-insensitive paths) are not guessed.

use std::fmt;

use serde::{Deserialize, Serialize};
use url::Url;
use xxhash_rust::xxh3::xxh3_128;

mod site_file;

pub use site_file::{percent_decode_lossy, site_file};

/// The longest URL, in bytes, that is ever queued.
pub const MAX_URL_LEN: usize = 1024;

/// Why a string is not a crawlable URL.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UrlError {
    /// Not a URL at all.
    #[error("not a URL: {0}")]
    Parse(#[from] url::ParseError),
    /// A scheme other than http or https (`mailto:`, `javascript:`, `ftp:` ...).
    #[error("scheme {0:?} is not crawled")]
    Scheme(String),
    /// No host name.
    #[error("URL has no host")]
    NoHost,
    /// Longer than [`MAX_URL_LEN`].
    #[error("URL is {0} bytes long, over the limit of {MAX_URL_LEN}")]
    TooLong(usize),
}

/// A URL in canonical form; see the module docs for the rules.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CanonicalUrl(Url);

/// A 128-bit xxh3 fingerprint of a canonical URL: the seen-set's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UrlFingerprint(pub u128);

impl UrlFingerprint {
    /// Big-endian bytes, as stored.
    pub fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }
}

/// An http(s) URL with a host, fragment dropped, percent-encoding normalized; any length.
fn canonical_form(mut url: Url) -> Result<Url, UrlError> {
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(UrlError::Scheme(other.to_string())),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(UrlError::NoHost);
    }
    url.set_fragment(None);
    let path = strip_session_path_param(&normalize_percent(url.path()));
    if path != url.path() {
        url.set_path(&path);
    }
    if let Some(query) = url.query() {
        let query = normalize_query(&normalize_percent(query));
        url.set_query((!query.is_empty()).then_some(query.as_str()));
    }
    Ok(url)
}

/// The path and query of an absolute URL in canonical form, as robots.txt rules match them,
/// without the length limit: for judging a URL the crawler would skip as too long
/// (`crawler robots check`).
pub fn robots_path(input: &str) -> Result<String, UrlError> {
    let url = canonical_form(Url::parse(input.trim())?)?;
    Ok(url[url::Position::BeforePath..url::Position::AfterQuery].to_string())
}

impl CanonicalUrl {
    /// Parses an absolute URL and brings it to canonical form.
    pub fn parse(input: &str) -> Result<Self, UrlError> {
        Self::from_url(Url::parse(input.trim())?)
    }

    /// Resolves `href` (relative or absolute) against `base` and canonicalizes the result.
    pub fn join(base: &Url, href: &str) -> Result<Self, UrlError> {
        Self::from_url(base.join(href.trim())?)
    }

    /// Canonicalizes an already parsed URL.
    pub fn from_url(url: Url) -> Result<Self, UrlError> {
        let url = canonical_form(url)?;
        let len = url.as_str().len();
        if len > MAX_URL_LEN {
            return Err(UrlError::TooLong(len));
        }
        Ok(Self(url))
    }

    /// The URL as text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The parsed URL.
    pub fn as_url(&self) -> &Url {
        &self.0
    }

    /// The host name (or IP literal), lowercase.
    pub fn host(&self) -> &str {
        self.0.host_str().unwrap_or_default()
    }

    /// `scheme://host[:port]`: the unit robots.txt and politeness apply to.
    pub fn origin(&self) -> String {
        self.0.origin().ascii_serialization()
    }

    /// The path and query, as robots.txt rules match them.
    pub fn path_and_query(&self) -> &str {
        &self.0[url::Position::BeforePath..url::Position::AfterQuery]
    }

    /// The URL without the query parameters whose key `remove` picks (keys as written in the
    /// URL, percent-encoded); the order of the others is kept.
    pub fn without_params(&self, remove: impl Fn(&str) -> bool) -> CanonicalUrl {
        let Some(query) = self.0.query() else {
            return self.clone();
        };
        let kept: Vec<&str> = query
            .split('&')
            .filter(|pair| !remove(pair.split('=').next().unwrap_or_default()))
            .collect();
        if kept.len() == query.split('&').count() {
            return self.clone();
        }
        let mut url = self.0.clone();
        let query = kept.join("&");
        url.set_query((!query.is_empty()).then_some(query.as_str()));
        CanonicalUrl(url)
    }

    /// The seen-set fingerprint.
    pub fn fingerprint(&self) -> UrlFingerprint {
        UrlFingerprint(xxh3_128(self.as_str().as_bytes()))
    }
}

impl fmt::Display for CanonicalUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for CanonicalUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CanonicalUrl({})", self.as_str())
    }
}

impl TryFrom<String> for CanonicalUrl {
    type Error = UrlError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<CanonicalUrl> for String {
    fn from(value: CanonicalUrl) -> Self {
        value.0.into()
    }
}

impl std::str::FromStr for CanonicalUrl {
    type Err = UrlError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Query parameters that only track a visit or carry a session: removed, so one page has one
/// URL. Keys compare case-insensitively; every `utm_*` key is one of them.
pub const TRACKING_PARAMS: &[&str] = &[
    "gclid",
    "dclid",
    "fbclid",
    "msclkid",
    "yclid",
    "mc_cid",
    "mc_eid",
    "_hsenc",
    "_hsmi",
    "jsessionid",
    "phpsessid",
    "aspsessionid",
    "sessionid",
];

fn is_tracking_param(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with("utm_") || TRACKING_PARAMS.contains(&key.as_str())
}

/// A query string with empty parameters (`&&`, a trailing `&`), tracking and session
/// parameters and exact repeats (`q=1&q=1`) removed; the order of the rest is kept (servers
/// may read it). Empty when nothing is left, so `/a?` becomes `/a`.
fn normalize_query(query: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    for pair in query.split('&') {
        let key = pair.split('=').next().unwrap_or_default();
        if pair.is_empty() || is_tracking_param(key) || kept.contains(&pair) {
            continue;
        }
        kept.push(pair);
    }
    kept.join("&")
}

/// A path without Java's `;jsessionid=...` path parameters, every one of them (removing
/// only the first left `/a;jsessionid=1/;jsessionid=2` to lose its second one when
/// canonicalized again, breaking the fixed point the seen-set relies on and the `url` fuzz
/// target and proptest check).
fn strip_session_path_param(path: &str) -> String {
    const PARAM: &str = ";jsessionid=";
    // ASCII lowercasing keeps every byte where it was, so positions agree with `path`.
    let lower = path.to_ascii_lowercase();
    let mut out = String::with_capacity(path.len());
    let mut at = 0;
    while let Some(found) = lower[at..].find(PARAM) {
        let start = at + found;
        out.push_str(&path[at..start]);
        at = path[start..].find('/').map_or(path.len(), |i| start + i);
    }
    out.push_str(&path[at..]);
    out
}

/// Decodes `%XX` escapes of unreserved characters (RFC 3986: `A-Z a-z 0-9 - . _ ~`) and
/// uppercases the hex digits of every other escape. A `%` that starts no escape is written
/// `%25` (RFC 3986 2.4): left bare, it could make an escape with what a decoded escape
/// gives (`%b%45` would be `%bE`), and the form would change when normalized again (found
/// by the `url` fuzz target). robots.txt matching compares paths in this form too.
pub fn normalize_percent(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = &input[i + 1..i + 3];
            let value = u8::from_str_radix(hex, 16).unwrap_or(b'%');
            if value.is_ascii_alphanumeric() || matches!(value, b'-' | b'.' | b'_' | b'~') {
                out.push(value as char);
            } else {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
            }
            i += 3;
        } else if bytes[i] == b'%' {
            out.push_str("%25");
            i += 1;
        } else {
            // Safe on char boundaries: '%' is ASCII, and everything else is copied whole.
            let ch = input[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: &str) {
        let got = CanonicalUrl::parse(input).map(|u| u.to_string());
        assert_eq!(got.as_deref(), Ok(expected), "canonical form of {input}");
    }

    #[test]
    fn canonical_form_table() {
        for (input, expected) in [
            // case of scheme and host, default ports, dot segments, fragments
            ("HTTP://A.com:80/x/../y#f", "http://a.com/y"),
            ("https://A.COM:443/", "https://a.com/"),
            ("http://a.com:443/", "http://a.com:443/"),
            ("http://a.com/a/./b/.././c/", "http://a.com/a/c/"),
            ("http://a.com/../../x", "http://a.com/x"),
            // empty path, a trailing `?`
            ("http://a.com", "http://a.com/"),
            ("http://a.com/x?", "http://a.com/x"),
            ("http://a.com/x?#frag", "http://a.com/x"),
            // percent-encoding: unreserved decoded, the rest upper-cased
            ("http://a.com/%7Euser/%41%2d%5f", "http://a.com/~user/A-_"),
            ("http://a.com/a%2fb%3a", "http://a.com/a%2Fb%3A"),
            ("http://a.com/?q=%e2%82%ac", "http://a.com/?q=%E2%82%AC"),
            ("http://a.com/sp ace", "http://a.com/sp%20ace"),
            // a `%` that starts no escape is escaped, so a decoded escape cannot complete it
            // (the `url` fuzz target: `%b%45` became `%bE`, then `%BE` when canonicalized again)
            ("http://a.com/%b%45", "http://a.com/%25bE"),
            (
                "http://a.com/100%?q=%%41%4",
                "http://a.com/100%25?q=%25A%254",
            ),
            // IDN to punycode
            ("http://Bücher.example/", "http://xn--bcher-kva.example/"),
            // repeated or empty query parameters
            ("http://a.com/s?q=&q=", "http://a.com/s?q="),
            ("http://a.com/s?a=1&&b=2&", "http://a.com/s?a=1&b=2"),
            ("http://a.com/s?a=1&b=2&a=1", "http://a.com/s?a=1&b=2"),
            ("http://a.com/s?b=2&a=1", "http://a.com/s?b=2&a=1"),
            ("http://a.com/s?a=1&a=2", "http://a.com/s?a=1&a=2"),
            // tracking and session parameters
            (
                "http://a.com/p?id=7&utm_source=x&UTM_Medium=y&fbclid=z",
                "http://a.com/p?id=7",
            ),
            ("http://a.com/p?gclid=1", "http://a.com/p"),
            (
                "http://a.com/p?PHPSESSID=ab12&page=2",
                "http://a.com/p?page=2",
            ),
            (
                "http://a.com/cart;jsessionid=A1B2/item",
                "http://a.com/cart/item",
            ),
            ("http://a.com/cart;JSESSIONID=A1B2", "http://a.com/cart"),
            // every one of them, or canonicalizing again would remove the next
            (
                "http://a.com/a;jsessionid=1/;jsessionid=2/b;JSessionId=3",
                "http://a.com/a//b",
            ),
            ("http://a.com/p?utm=1&sid=2", "http://a.com/p?utm=1&sid=2"),
        ] {
            check(input, expected);
        }
    }

    #[test]
    fn canonical_forms() {
        check(
            "HTTP://Example.COM:80/a/./b/../c#frag",
            "http://example.com/a/c",
        );
        check("https://example.com:443", "https://example.com/");
        check("http://example.com:8080/x", "http://example.com:8080/x");
        check(
            "http://example.com/%7euser/%2fa%2Fb",
            "http://example.com/~user/%2Fa%2Fb",
        );
        check(
            "http://example.com/a?b=%41%3d",
            "http://example.com/a?b=A%3D",
        );
        check("http://example.com/ünï", "http://example.com/%C3%BCn%C3%AF");
        check("http://bücher.example/", "http://xn--bcher-kva.example/");
        check("  http://example.com/x  ", "http://example.com/x");
    }

    #[test]
    fn refused() {
        assert!(matches!(
            CanonicalUrl::parse("mailto:a@b.c"),
            Err(UrlError::Scheme(_))
        ));
        assert!(matches!(
            CanonicalUrl::parse("javascript:void(0)"),
            Err(UrlError::Scheme(_))
        ));
        assert!(matches!(
            CanonicalUrl::parse("/relative"),
            Err(UrlError::Parse(_))
        ));
        let long = format!("http://example.com/{}", "a".repeat(MAX_URL_LEN));
        assert!(matches!(
            CanonicalUrl::parse(&long),
            Err(UrlError::TooLong(_))
        ));
    }

    #[test]
    fn robots_paths_have_no_length_limit() {
        let long = format!("HTTP://A.test/{}?q=%7e#frag", "a".repeat(2 * MAX_URL_LEN));
        assert_eq!(
            robots_path(&long).unwrap(),
            format!("/{}?q=~", "a".repeat(2 * MAX_URL_LEN))
        );
        assert!(matches!(
            robots_path("ftp://a.test/x"),
            Err(UrlError::Scheme(_))
        ));
    }

    #[test]
    fn without_params_keeps_the_order_of_the_rest() {
        let url = CanonicalUrl::parse("http://a.test/p?x=1&sid=9&y=2&SID=3").unwrap();
        let strip = |key: &str| key.eq_ignore_ascii_case("sid");
        assert_eq!(
            url.without_params(strip).as_str(),
            "http://a.test/p?x=1&y=2"
        );
        let only = CanonicalUrl::parse("http://a.test/p?sid=9").unwrap();
        assert_eq!(only.without_params(strip).as_str(), "http://a.test/p");
        let none = CanonicalUrl::parse("http://a.test/p").unwrap();
        assert_eq!(none.without_params(strip), none);
    }

    #[test]
    fn join_resolves_relative_links() {
        let base = Url::parse("http://example.com/dir/page.html").unwrap();
        let joined = CanonicalUrl::join(&base, "../other.html#x").unwrap();
        assert_eq!(joined.as_str(), "http://example.com/other.html");
        assert_eq!(joined.origin(), "http://example.com");
        assert_eq!(joined.path_and_query(), "/other.html");
    }

    #[test]
    fn fingerprint_follows_canonical_form() {
        let a = CanonicalUrl::parse("http://EXAMPLE.com/a#x").unwrap();
        let b = CanonicalUrl::parse("http://example.com:80/a").unwrap();
        assert_eq!(a.fingerprint(), b.fingerprint());
    }
}

#[cfg(test)]
mod props;
