//! Reading sitemaps (<https://www.sitemaps.org/protocol.html>): a `<urlset>` lists pages, a
//! `<sitemapindex>` lists more sitemaps, and a plain-text sitemap is one URL per line.
//!
//! Reading is pure: bytes in, URLs out. The crawl fetches the sitemaps named by robots.txt
//! `Sitemap:` lines through the ordinary politeness queues and queues their pages as seeds;
//! which sitemaps it queues and what a fetched one adds is `sitemap/intake.rs`
//! (`SitemapIntake`).
//!
//! A body that starts with the gzip magic bytes is decompressed while it is read. Every byte
//! read after decompression counts against [`SitemapLimits::max_bytes`]: at the limit reading
//! stops with [`SitemapError::TooLarge`] (it is not silently truncated), so a decompression
//! bomb costs at most that much work. XML is read one event at a time and text one line at a
//! time; memory holds the entries kept and at most one event (which the limit also bounds).
//!
//! Broken input does not spoil what came before it: the entries read before a problem are
//! returned along with the problem in [`Sitemap::stopped`]. See [`parse`] for when the
//! answer is an `Err`.

mod intake;

pub(crate) use intake::{SitemapAnswer, SitemapIntake};

use std::io::{self, BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::Event;
use quick_xml::reader::Reader;
use shared::fail_point;
use url::Url;

/// The protocol's size limit of a sitemap, after decompression: 50 MiB.
pub const MAX_SITEMAP_BYTES: u64 = 50 * 1024 * 1024;

/// The protocol's limit of entries in one sitemap.
pub const MAX_SITEMAP_URLS: usize = 50_000;

/// Longer URLs (and text lines) are dropped: the protocol allows fewer than 2,048 characters.
const MAX_URL_BYTES: usize = 2048;

/// How much of a sitemap is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SitemapLimits {
    /// Most bytes read, after decompression (default [`MAX_SITEMAP_BYTES`]).
    pub max_bytes: u64,
    /// Most entries kept (default [`MAX_SITEMAP_URLS`]).
    pub max_urls: usize,
}

impl Default for SitemapLimits {
    fn default() -> Self {
        Self {
            max_bytes: MAX_SITEMAP_BYTES,
            max_urls: MAX_SITEMAP_URLS,
        }
    }
}

/// What a sitemap gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Sitemap {
    /// The entries, in document order: absolute http(s) URLs only, not canonicalized.
    pub entries: SitemapEntries,
    /// Why reading stopped before the end of the document, if it did; the entries read
    /// before that point are kept.
    pub stopped: Option<SitemapError>,
}

/// The entries of a sitemap, by kind of sitemap.
#[derive(Clone, Debug, PartialEq)]
pub enum SitemapEntries {
    /// A `<urlset>`, or a plain-text sitemap (whose pages have no `lastmod` or `priority`):
    /// pages to crawl.
    Pages(Vec<PageEntry>),
    /// A `<sitemapindex>`: sitemaps to fetch.
    Sitemaps(Vec<ChildSitemap>),
}

impl SitemapEntries {
    /// How many entries there are.
    pub fn len(&self) -> usize {
        match self {
            SitemapEntries::Pages(pages) => pages.len(),
            SitemapEntries::Sitemaps(sitemaps) => sitemaps.len(),
        }
    }

    /// There are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A `<url>` of a `<urlset>`.
#[derive(Clone, Debug, PartialEq)]
pub struct PageEntry {
    /// `<loc>`.
    pub url: Url,
    /// `<lastmod>` as written (W3C Datetime, not checked).
    pub lastmod: Option<String>,
    /// `<priority>`, when it is a number from 0.0 to 1.0.
    pub priority: Option<f32>,
}

/// A `<sitemap>` of a `<sitemapindex>`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildSitemap {
    /// `<loc>`.
    pub url: Url,
    /// `<lastmod>` as written (W3C Datetime, not checked).
    pub lastmod: Option<String>,
}

/// Why a sitemap was not read to its end.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SitemapError {
    /// More than [`SitemapLimits::max_bytes`] after decompression.
    #[error("sitemap larger than {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// More than [`SitemapLimits::max_urls`] entries: the first ones are kept.
    #[error("sitemap has more than {limit} URLs")]
    TooManyUrls {
        /// The limit.
        limit: usize,
    },
    /// The gzip stream is corrupt or cut off.
    #[error("gzip: {0}")]
    Gzip(String),
    /// The XML is not well-formed (or not UTF-8).
    #[error("malformed XML at byte {position}: {message}")]
    Malformed {
        /// Where the problem is, in the decompressed document.
        position: u64,
        /// What the problem is.
        message: String,
    },
    /// The document ends before its root element is closed (a body cut off in transfer).
    #[error("sitemap ends before its root element is closed")]
    Truncated,
    /// The document is XML but neither `<urlset>` nor `<sitemapindex>` (an HTML page, a
    /// feed), or has no element at all.
    #[error("not a sitemap: {0}")]
    NotASitemap(String),
}

/// Reads a sitemap: gzip or not (by the magic bytes), XML (when the first thing after
/// whitespace is `<`) or plain text.
///
/// - `Ok` with `stopped: None`: the whole document was read.
/// - `Ok` with `stopped: Some(error)`: reading stopped at `error` (a limit, broken XML or
///   gzip) after at least one entry was kept; those entries are good.
/// - `Err`: the same problems before any entry was kept, or [`SitemapError::NotASitemap`].
pub fn parse(body: &[u8], limits: &SitemapLimits) -> Result<Sitemap, SitemapError> {
    // The fault-injection tests crash the crawler here (a sitemap fetched, not yet read).
    fail_point!("crawler::sitemap::read");
    let source: Box<dyn Read + '_> = if body.starts_with(&[0x1f, 0x8b]) {
        Box::new(MultiGzDecoder::new(body))
    } else {
        Box::new(body)
    };
    let mut input = BufReader::new(Bounded {
        inner: source,
        left: limits.max_bytes,
    });
    let is_xml = match starts_with_markup(&mut input) {
        Ok(is_xml) => is_xml,
        Err(error) => return Err(read_error(&error, limits)),
    };
    if is_xml {
        parse_xml(Reader::from_reader(input), limits)
    } else {
        let mut pages = Vec::new();
        let stopped = read_text(&mut input, limits, &mut pages).err();
        finish(SitemapEntries::Pages(pages), stopped)
    }
}

/// The answer for `entries` read before `stopped`: see [`parse`].
fn finish(entries: SitemapEntries, stopped: Option<SitemapError>) -> Result<Sitemap, SitemapError> {
    match stopped {
        Some(error) if entries.is_empty() => Err(error),
        stopped => Ok(Sitemap { entries, stopped }),
    }
}

/// A reader that fails with [`SizeLimit`] rather than give more than `left` bytes.
struct Bounded<R> {
    inner: R,
    left: u64,
}

/// The error [`Bounded`] reads fail with.
#[derive(Debug, thiserror::Error)]
#[error("size limit reached")]
struct SizeLimit;

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            // Exactly at the limit is fine; one byte more is not.
            return match self.inner.read(&mut [0; 1])? {
                0 => Ok(0),
                _ => Err(io::Error::other(SizeLimit)),
            };
        }
        let room = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let read = self.inner.read(&mut buf[..room])?;
        self.left -= read as u64;
        Ok(read)
    }
}

/// A failed read: the size limit, or else a broken gzip stream (plain bodies cannot fail).
fn read_error(error: &io::Error, limits: &SitemapLimits) -> SitemapError {
    if error.get_ref().is_some_and(|inner| inner.is::<SizeLimit>()) {
        SitemapError::TooLarge {
            limit: limits.max_bytes,
        }
    } else {
        SitemapError::Gzip(error.to_string())
    }
}

/// Skips a UTF-8 BOM and whitespace; says whether the document then starts with `<`.
fn starts_with_markup(input: &mut impl BufRead) -> io::Result<bool> {
    let mut at_start = true;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        let bom = if at_start && buf.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        at_start = false;
        let skip = bom
            + buf[bom..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let first = buf.get(skip).copied();
        input.consume(skip);
        if let Some(first) = first {
            return Ok(first == b'<');
        }
    }
}

/// Reads a plain-text sitemap into `pages`: one URL per line, UTF-8; other lines are skipped.
fn read_text(
    input: &mut impl BufRead,
    limits: &SitemapLimits,
    pages: &mut Vec<PageEntry>,
) -> Result<(), SitemapError> {
    let mut line = Vec::new();
    let mut overlong = false;
    loop {
        let buf = input
            .fill_buf()
            .map_err(|error| read_error(&error, limits))?;
        let end = buf.is_empty();
        let (part, used, line_done) = match buf.iter().position(|&b| b == b'\n') {
            Some(newline) => (&buf[..newline], newline + 1, true),
            None => (buf, buf.len(), end),
        };
        if line.len() + part.len() > MAX_URL_BYTES {
            overlong = true;
        } else {
            line.extend_from_slice(part);
        }
        input.consume(used);
        if line_done {
            let url = std::str::from_utf8(&line)
                .ok()
                .filter(|_| !overlong)
                .and_then(|line| absolute_http(line.trim_start_matches('\u{feff}')));
            if let Some(url) = url {
                if pages.len() >= limits.max_urls {
                    return Err(SitemapError::TooManyUrls {
                        limit: limits.max_urls,
                    });
                }
                pages.push(PageEntry {
                    url,
                    lastmod: None,
                    priority: None,
                });
            }
            line.clear();
            overlong = false;
        }
        if end {
            return Ok(());
        }
    }
}

/// Reads an XML sitemap.
fn parse_xml<R: BufRead>(
    mut reader: Reader<R>,
    limits: &SitemapLimits,
) -> Result<Sitemap, SitemapError> {
    let config = reader.config_mut();
    // `&` unescaped in a URL is a common mistake; keep it as written.
    config.allow_dangling_amp = true;
    let mut state = XmlSitemap::new(limits.max_urls);
    let mut buf = Vec::new();
    let stopped = loop {
        buf.clear();
        let event = match reader.read_event_into(&mut buf) {
            Ok(event) => event,
            Err(quick_xml::Error::Io(error)) => break Some(read_error(&error, limits)),
            Err(error) => {
                break Some(SitemapError::Malformed {
                    position: reader.error_position(),
                    message: error.to_string(),
                });
            }
        };
        match state.event(event) {
            Ok(true) => {}
            Ok(false) => break None,
            Err(error) => break Some(error),
        }
    };
    match state.entries {
        Some(entries) => finish(entries, stopped),
        None => Err(stopped.unwrap_or_else(|| SitemapError::NotASitemap("no element".into()))),
    }
}

/// A child element of `<url>` or `<sitemap>` whose text is kept.
#[derive(Clone, Copy, Debug)]
enum Field {
    Loc,
    Lastmod,
    Priority,
}

/// The fields of the `<url>` or `<sitemap>` being read.
#[derive(Default)]
struct Draft {
    loc: Option<String>,
    lastmod: Option<String>,
    priority: Option<String>,
}

/// The state of an XML sitemap being read. Elements are matched by local name, so any
/// namespace prefix works; `<loc>` counts only as a child of `<url>` or `<sitemap>`, so
/// extensions such as `<image:image><image:loc>` are ignored.
struct XmlSitemap {
    max_urls: usize,
    /// Known once the root element is read.
    entries: Option<SitemapEntries>,
    /// Elements open.
    depth: usize,
    /// The `<url>` or `<sitemap>` open (at depth 2).
    draft: Option<Draft>,
    /// The field open in it (at depth 3).
    field: Option<Field>,
    /// The field's text so far.
    text: String,
    /// The field's text is longer than any URL may be.
    overlong: bool,
}

impl XmlSitemap {
    fn new(max_urls: usize) -> Self {
        Self {
            max_urls,
            entries: None,
            depth: 0,
            draft: None,
            field: None,
            text: String::new(),
            overlong: false,
        }
    }

    /// Takes one event; `Ok(false)` when the document is complete.
    fn event(&mut self, event: Event<'_>) -> Result<bool, SitemapError> {
        match event {
            Event::Start(tag) => {
                self.depth += 1;
                self.open(tag.local_name().as_ref())?;
            }
            Event::Empty(tag) if self.depth == 0 => {
                // `<urlset/>`: an empty sitemap.
                self.depth = 1;
                self.open(tag.local_name().as_ref())?;
                return Ok(false);
            }
            Event::End(_) => {
                let depth = self.depth;
                self.depth = depth.saturating_sub(1);
                match depth {
                    1 => return Ok(false),
                    2 => {
                        if let Some(draft) = self.draft.take() {
                            self.keep(draft)?;
                        }
                    }
                    3 => self.close_field(),
                    _ => {}
                }
            }
            Event::Text(text) => self.append(&text),
            Event::CData(text) => self.append(&text),
            Event::GeneralRef(reference) => {
                if let Ok(Some(char)) = reference.resolve_char_ref() {
                    self.append(char.encode_utf8(&mut [0; 4]));
                } else if let Some(text) = resolve_predefined_entity(&reference) {
                    self.append(text);
                } else {
                    // An entity the sitemap cannot define: kept as written.
                    self.append(&format!("&{};", &*reference));
                }
            }
            Event::Eof if self.depth > 0 => return Err(SitemapError::Truncated),
            Event::Eof => return Ok(false),
            _ => {}
        }
        Ok(true)
    }

    /// An element `name` was opened at `self.depth`.
    fn open(&mut self, name: &str) -> Result<(), SitemapError> {
        match (self.depth, &self.entries) {
            (1, _) => {
                self.entries = Some(match name {
                    "urlset" => SitemapEntries::Pages(Vec::new()),
                    "sitemapindex" => SitemapEntries::Sitemaps(Vec::new()),
                    other => {
                        return Err(SitemapError::NotASitemap(format!("root element <{other}>")));
                    }
                });
            }
            (2, Some(SitemapEntries::Pages(_))) if name == "url" => {
                self.draft = Some(Draft::default());
            }
            (2, Some(SitemapEntries::Sitemaps(_))) if name == "sitemap" => {
                self.draft = Some(Draft::default());
            }
            (3, _) if self.draft.is_some() => {
                self.field = match name {
                    "loc" => Some(Field::Loc),
                    "lastmod" => Some(Field::Lastmod),
                    "priority" => Some(Field::Priority),
                    _ => None,
                };
                self.text.clear();
                self.overlong = false;
            }
            _ => {}
        }
        Ok(())
    }

    /// Text inside the open field (not inside elements nested in it).
    fn append(&mut self, text: &str) {
        if self.field.is_none() || self.depth != 3 {
            return;
        }
        let text = if self.text.is_empty() {
            text.trim_start()
        } else {
            text
        };
        if self.text.len() + text.len() > MAX_URL_BYTES {
            self.overlong = true;
        } else {
            self.text.push_str(text);
        }
    }

    /// The open field is closed: its text goes into the draft.
    fn close_field(&mut self) {
        let (Some(field), Some(draft)) = (self.field.take(), self.draft.as_mut()) else {
            return;
        };
        let text = self.text.trim();
        if self.overlong || text.is_empty() {
            return;
        }
        let slot = match field {
            Field::Loc => &mut draft.loc,
            Field::Lastmod => &mut draft.lastmod,
            Field::Priority => &mut draft.priority,
        };
        *slot = Some(text.to_string());
    }

    /// A `<url>` or `<sitemap>` is complete: kept if its `<loc>` is an absolute http(s) URL.
    fn keep(&mut self, draft: Draft) -> Result<(), SitemapError> {
        let (Some(entries), Some(url)) = (
            self.entries.as_mut(),
            draft.loc.as_deref().and_then(absolute_http),
        ) else {
            return Ok(());
        };
        if entries.len() >= self.max_urls {
            return Err(SitemapError::TooManyUrls {
                limit: self.max_urls,
            });
        }
        match entries {
            SitemapEntries::Pages(pages) => pages.push(PageEntry {
                url,
                lastmod: draft.lastmod,
                priority: draft
                    .priority
                    .and_then(|p| p.parse().ok())
                    .filter(|p| (0.0..=1.0).contains(p)),
            }),
            SitemapEntries::Sitemaps(sitemaps) => sitemaps.push(ChildSitemap {
                url,
                lastmod: draft.lastmod,
            }),
        }
        Ok(())
    }
}

/// `text` as an absolute http or https URL.
fn absolute_http(text: &str) -> Option<Url> {
    let text = text.trim();
    if text.len() > MAX_URL_BYTES {
        return None;
    }
    Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.has_host())
}

#[cfg(test)]
mod tests;
