//! robots.txt lines, read as Google's parser reads them (a superset of RFC 9309 2.2).
//!
//! - A line ends at CR, LF or CRLF. Only its first [`MAX_LINE_BYTES`] octets are read.
//! - A byte order mark, whole or partial, is skipped at the start of the file only.
//! - `#` starts a comment, to the end of the line; ASCII whitespace around names and values
//!   is dropped.
//! - A line is `name: value`. When it has no colon, `name value` is accepted too, if it is
//!   exactly two words separated by spaces or tabs.
//! - Names are case-insensitive and recognized by how they start, with the misspellings
//!   Google accepts: `user-agent` (`useragent`, `user agent`), `allow`, `disallow`
//!   (`dissallow`, `dissalow`, `disalow`, `diasllow`, `disallaw`), `sitemap` (`site-map`);
//!   and ours: `crawl-delay` (`crawldelay`). Anything else is an [`Directive::Other`] line,
//!   which ends no group.

/// The longest line read, in octets; the rest of a longer line is ignored. This is Google's
/// limit (8 times the 2083 octets a browser takes in a URL, less one for C's final NUL).
pub(super) const MAX_LINE_BYTES: usize = 2083 * 8 - 1;

/// What a line says; values are raw octets, trimmed.
#[derive(Debug, PartialEq)]
pub(super) enum Directive<'a> {
    /// `User-agent`: starts a group, or adds an agent to the group being started.
    UserAgent(&'a [u8]),
    /// `Allow` rule.
    Allow(&'a [u8]),
    /// `Disallow` rule.
    Disallow(&'a [u8]),
    /// `Crawl-delay`, in seconds (not in RFC 9309; ends no group).
    CrawlDelay(&'a [u8]),
    /// `Sitemap` URL (for every agent; ends no group).
    Sitemap(&'a [u8]),
    /// Empty, a comment, unparseable or an unknown name: ends no group.
    Other,
}

/// The names we recognize.
#[derive(Clone, Copy)]
enum Name {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    Sitemap,
}

/// How each name may start, lowercase.
const NAMES: &[(&str, Name)] = &[
    ("user-agent", Name::UserAgent),
    ("useragent", Name::UserAgent),
    ("user agent", Name::UserAgent),
    ("allow", Name::Allow),
    ("disallow", Name::Disallow),
    ("dissallow", Name::Disallow),
    ("dissalow", Name::Disallow),
    ("disalow", Name::Disallow),
    ("diasllow", Name::Disallow),
    ("disallaw", Name::Disallow),
    ("sitemap", Name::Sitemap),
    ("site-map", Name::Sitemap),
    ("crawl-delay", Name::CrawlDelay),
    ("crawldelay", Name::CrawlDelay),
];

/// The lines of a robots.txt body (already cut to the size read), each cut to
/// [`MAX_LINE_BYTES`].
#[cfg(test)]
pub(super) fn lines(body: &str) -> impl Iterator<Item = &[u8]> {
    numbered_lines(body).map(|(_, line)| line)
}

/// The lines of a robots.txt body with their numbers (from 1; `\r\n`, `\n` and a lone `\r`
/// each end one line), each cut to [`MAX_LINE_BYTES`].
pub(super) fn numbered_lines(body: &str) -> impl Iterator<Item = (u32, &[u8])> {
    let mut rest = Some(skip_bom(body).as_bytes());
    let mut number = 0u32;
    std::iter::from_fn(move || {
        let text = rest?;
        number = number.saturating_add(1);
        let (line, next) = match text.iter().position(|&b| b == b'\n' || b == b'\r') {
            None => (text, None),
            Some(at) => {
                let crlf = text[at] == b'\r' && text.get(at + 1) == Some(&b'\n');
                (&text[..at], Some(&text[at + 1 + usize::from(crlf)..]))
            }
        };
        rest = next;
        Some((number, &line[..line.len().min(MAX_LINE_BYTES)]))
    })
}

/// Skips a UTF-8 byte order mark at the start, whole or partial, as Google does. The body
/// reaches us decoded, so the mark is U+FEFF if the decoder left it, and a partial one is
/// whatever the decoder made of its one or two octets: U+FFFD as UTF-8, `ï»` or `ï` as
/// windows-1252, other letters in other encodings. So a leading U+FEFF is skipped, else a
/// leading run of at most three characters outside ASCII. Whatever is skipped could only
/// have spoiled the first line's name, which is ASCII when it means anything.
fn skip_bom(body: &str) -> &str {
    if let Some(rest) = body.strip_prefix('\u{feff}') {
        return rest;
    }
    let run = body.find(|c: char| c.is_ascii()).unwrap_or(body.len());
    if body[..run].chars().count() <= 3 {
        &body[run..]
    } else {
        body
    }
}

/// Reads one line.
pub(super) fn directive(line: &[u8]) -> Directive<'_> {
    let line = match line.iter().position(|&b| b == b'#') {
        Some(comment) => &line[..comment],
        None => line,
    };
    let line = trim(line);
    let (name, value) = match line.iter().position(|&b| b == b':') {
        Some(colon) => (trim(&line[..colon]), trim(&line[colon + 1..])),
        None => {
            // Google: a missing colon is forgiven between exactly two words.
            let Some(gap) = line.iter().position(|&b| b == b' ' || b == b'\t') else {
                return Directive::Other;
            };
            let value = trim(&line[gap..]);
            if value.iter().any(|&b| b == b' ' || b == b'\t') {
                return Directive::Other;
            }
            (&line[..gap], value)
        }
    };
    if name.is_empty() {
        return Directive::Other;
    }
    let known = NAMES.iter().find(|(start, _)| {
        name.len() >= start.len() && name[..start.len()].eq_ignore_ascii_case(start.as_bytes())
    });
    match known {
        Some((_, Name::UserAgent)) => Directive::UserAgent(value),
        Some((_, Name::Allow)) => Directive::Allow(value),
        Some((_, Name::Disallow)) => Directive::Disallow(value),
        Some((_, Name::CrawlDelay)) => Directive::CrawlDelay(value),
        Some((_, Name::Sitemap)) => Directive::Sitemap(value),
        None => Directive::Other,
    }
}

/// Whitespace as C's `isspace` has it in the "C" locale.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s
        && is_space(*first)
    {
        s = rest;
    }
    while let [rest @ .., last] = s
        && is_space(*last)
    {
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_values_and_separators() {
        use Directive::*;
        let cases: &[(&str, Directive<'_>)] = &[
            ("User-agent: FooBot", UserAgent(b"FooBot")),
            ("  uSeR-aGeNt  :  Foo Bar  ", UserAgent(b"Foo Bar")),
            ("user-agent FooBot", UserAgent(b"FooBot")),
            ("user-agent\tFooBot", UserAgent(b"FooBot")),
            ("user-agent FooBot extra", Other),
            ("user agent: FooBot", UserAgent(b"FooBot")),
            ("user agent FooBot", Other),
            ("useragent: x", UserAgent(b"x")),
            ("User-agents: x", UserAgent(b"x")),
            ("user_agent: x", Other),
            ("disallow /", Disallow(b"/")),
            ("Disallow: /a:b # c", Disallow(b"/a:b")),
            ("Disallow:", Disallow(b"")),
            ("dissallow: /", Disallow(b"/")),
            ("dissalow: /", Disallow(b"/")),
            ("disalow: /", Disallow(b"/")),
            ("diasllow: /", Disallow(b"/")),
            ("disallaw: /", Disallow(b"/")),
            ("disallw: /", Other),
            ("alow: /", Other),
            ("Allow: /x", Allow(b"/x")),
            ("Sitemap: http://a/s.xml", Sitemap(b"http://a/s.xml")),
            ("site-map: http://a/s.xml", Sitemap(b"http://a/s.xml")),
            ("Crawl-delay: 2", CrawlDelay(b"2")),
            ("crawldelay: 2", CrawlDelay(b"2")),
            ("# Disallow: /", Other),
            (": /", Other),
            ("disallow", Other),
            ("", Other),
            ("\u{feff}Disallow: /", Other),
        ];
        for (line, expected) in cases {
            assert_eq!(&directive(line.as_bytes()), expected, "{line:?}");
        }
    }

    #[test]
    fn line_ends_and_boms() {
        let lines = |body: &str| lines(body).filter(|l| !l.is_empty()).count();
        assert_eq!(lines("a\nb\r\nc\rd"), 4);
        let numbered: Vec<(u32, &[u8])> = numbered_lines("a\r\n\r\nb\rc\nd").collect();
        assert_eq!(
            numbered,
            [(1, &b"a"[..]), (2, b""), (3, b"b"), (4, b"c"), (5, b"d")]
        );
        for body in ["\u{feff}a", "\u{fffd}a", "ï»¿a", "ï»a", "ïa", "п»a"] {
            assert_eq!(super::lines(body).next(), Some(&b"a"[..]), "{body:?}");
        }
        // A broken mark: what is left of it spoils the first line, as for Google.
        assert_eq!(
            super::lines("ï\u{11}¿a").next(),
            Some("\u{11}¿a".as_bytes())
        );
        assert_eq!(
            super::lines("a\u{feff}b").next(),
            Some("a\u{feff}b".as_bytes())
        );
        assert_eq!(
            super::lines("\u{feff}\u{feff}a").next(),
            Some("\u{feff}a".as_bytes())
        );
        assert_eq!(
            super::lines("ツツツツ a").next(),
            Some("ツツツツ a".as_bytes())
        );
        let long = "x".repeat(MAX_LINE_BYTES + 10);
        assert_eq!(
            super::lines(&long).next().map(<[u8]>::len),
            Some(MAX_LINE_BYTES)
        );
    }
}
