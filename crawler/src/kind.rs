//! Content kinds as plug-ins: each kind of body the crawler reads (an HTML page, an image, a
//! PDF) is a [`KindReader`] in its own file under `kind/`, listed once in [`Kinds::new`].
//!
//! A reader names its media types and its part of `Accept`, recognizes its bytes (a
//! server's `Content-Type` is a hint, not the truth), sets its body limit and reads a body in
//! its own bounded step, off the async threads, into a [`Findings`]: the page-level facts the
//! crawl stores for every answer (title, links, text hashes, body) and the kind's own records,
//! all written in the page's one batch. Which kinds are read is set per crawl and per host
//! ([`shared::config::CrawlerConfig::kinds_for`]).
//!
//! How a body's kind is settled ([`Kinds::plan`], then [`Kinds::settle`]):
//! 1. Before the body: a `Content-Type` of a kind that is read sets the limit; one that names
//!    no kind at all, or a generic one (`application/octet-stream`, none), is read up to the
//!    largest limit of the kinds read, to be told by its bytes; any other is not read.
//! 2. After: the first bytes decide when they are recognizable; else the hint does (an
//!    answer without a media type and without recognizable bytes is read as HTML, as
//!    browsers do). A kind that is not read keeps no body; a body over its kind's limit is
//!    cut (or, for a kind that cannot read a cut body, refused).

mod html;
mod image;
mod pdf;
mod sniff;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use reqwest::header::HeaderValue;
use shared::config::CrawlerConfig;
use shared::record::{CompressedBody, MediaRecord, Thumbnail};
use shared::{CanonicalUrl, ContentKind, KindSet};

use crate::extract::Extracted;
use pdf_reader::ChildCommand;

/// A body as it came (after `Content-Encoding`), to be read.
#[derive(Debug)]
pub(crate) struct Body {
    /// The bytes, at most the kind's limit.
    pub bytes: Vec<u8>,
    /// The `Content-Type` header, lowercase (empty when there is none).
    pub content_type: String,
    /// Whether it was cut at the limit.
    pub truncated: bool,
}

/// What a reader needs besides the body.
#[derive(Clone, Debug)]
pub(crate) struct ReadContext {
    /// The URL it came from.
    pub url: CanonicalUrl,
    /// Our robots token (for `<meta name="OUR-TOKEN">`).
    pub agent: String,
}

/// What reading a body found: what every stored answer has, and the kind's own records.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// Title, META, links, the images a page shows and text hashes (an image has none of
    /// them).
    pub extracted: Extracted,
    /// The text the store keeps as the page's body (an HTML page's text, a PDF's text).
    pub body: Option<CompressedBody>,
    /// The kind's record for the `media` family (images, PDFs).
    pub media: Option<MediaRecord>,
    /// A thumbnail to store under the image's content hash.
    pub thumbnail: Option<Thumbnail>,
}

/// What happens to a body longer than its kind's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OverLimit {
    /// The first bytes are kept and read (an HTML page, an image's size), marked truncated.
    Cut,
    /// Nothing is read: a cut body of this kind cannot be (a PDF's index is at its end).
    Refuse,
}

/// How the crawler reads one kind of content. One implementation per file under `kind/`.
pub(crate) trait KindReader: Send + Sync {
    /// The kind it reads.
    fn kind(&self) -> ContentKind;
    /// Media types (lowercase, no parameters) whose `Content-Type` hints at this kind; a
    /// trailing `/` matches a whole type (`image/`).
    fn media_types(&self) -> &'static [&'static str];
    /// Its part of `Accept`, without `*/*`.
    fn accept(&self) -> &'static str;
    /// Whether a body's first bytes are surely this kind.
    fn sniff(&self, head: &[u8]) -> bool;
    /// The most body bytes read.
    fn body_limit(&self) -> usize;
    /// What a longer body becomes.
    fn over_limit(&self) -> OverLimit;
    /// Reads a body, bounded in memory and time, off the async threads; never panics (a
    /// body it cannot read is a [`Findings`] that says why).
    fn read(&self, body: Body, context: ReadContext) -> BoxFuture<'static, Findings>;
}

/// What a `Content-Type` says before the body is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hint {
    /// A media type of this kind.
    Kind(ContentKind),
    /// No media type, or a generic one: the bytes will tell.
    Unknown,
    /// A media type of no kind the crawler reads (text/plain, video/mp4 ...).
    Other,
}

/// Whether and how far to read a body, decided from its headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadPlan {
    /// Read up to this many bytes.
    Read(usize),
    /// Do not read it: no kind read here could be it.
    Skip,
}

/// Media types that say nothing of what a body is.
const GENERIC_TYPES: [&str; 6] = [
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/unknown",
    "application/x-download",
    "application/force-download",
];

/// Every kind's reader: the registry.
#[derive(Clone)]
pub(crate) struct Kinds {
    readers: Arc<Vec<Box<dyn KindReader>>>,
    /// `Accept` for every set of kinds, by the set's bits.
    accept: Arc<Vec<HeaderValue>>,
}

impl Kinds {
    /// The readers, set up from the crawl's config. A new kind is one line here; the most
    /// telling signature goes first (HTML's patterns are the weakest: last).
    /// `pdf_child` runs the PDF reader's child (`None`: this binary's `pdf-text`).
    pub(crate) fn new(config: &CrawlerConfig, pdf_child: Option<&ChildCommand>) -> Self {
        let pdf_child = pdf_child.cloned().unwrap_or_else(|| {
            ChildCommand::current_exe().unwrap_or_else(|_| ChildCommand {
                program: "/proc/self/exe".into(),
                args: vec!["pdf-text".into()],
                env: Vec::new(),
            })
        });
        let readers: Vec<Box<dyn KindReader>> = vec![
            Box::new(image::ImageReader::new(config)),
            Box::new(pdf::PdfReader::new(config, pdf_child)),
            Box::new(html::HtmlReader::new(config)),
        ];
        let accept = (0..1u8 << ContentKind::ALL.len())
            .map(|bits| accept_header(&readers, KindSet::from_bits(bits)))
            .collect();
        Self {
            readers: Arc::new(readers),
            accept: Arc::new(accept),
        }
    }

    /// The reader of `kind`, when the crawler has one.
    pub(crate) fn reader(&self, kind: ContentKind) -> Option<&dyn KindReader> {
        self.readers
            .iter()
            .find(|reader| reader.kind() == kind)
            .map(|reader| reader.as_ref())
    }

    /// The `Accept` header asking for `kinds`.
    pub(crate) fn accept(&self, kinds: KindSet) -> HeaderValue {
        self.accept
            .get(usize::from(kinds.bits()))
            .cloned()
            .unwrap_or_else(|| HeaderValue::from_static("*/*"))
    }

    /// What a `Content-Type` (lowercase) hints at.
    pub(crate) fn hint(&self, content_type: &str) -> Hint {
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        if GENERIC_TYPES.contains(&essence) {
            return Hint::Unknown;
        }
        self.readers
            .iter()
            .find(|reader| {
                reader.media_types().iter().any(|media| {
                    essence == *media || (media.ends_with('/') && essence.starts_with(media))
                })
            })
            .map_or(Hint::Other, |reader| Hint::Kind(reader.kind()))
    }

    /// Whether to read a body that hints `hint`, when `kinds` are read, and how far.
    pub(crate) fn plan(&self, hint: Hint, kinds: KindSet) -> ReadPlan {
        let limit = |kind| self.reader(kind).map(|reader| reader.body_limit());
        match hint {
            Hint::Kind(kind) if kinds.contains(kind) => {
                limit(kind).map_or(ReadPlan::Skip, ReadPlan::Read)
            }
            Hint::Unknown => kinds
                .iter()
                .filter_map(limit)
                .max()
                .map_or(ReadPlan::Skip, ReadPlan::Read),
            Hint::Kind(_) | Hint::Other => ReadPlan::Skip,
        }
    }

    /// The kind of a body read after `hint`, from its bytes, when it is one of `kinds`
    /// (`None`: keep no body). Cuts a body over its kind's limit, or empties it when the
    /// kind refuses a longer one.
    pub(crate) fn settle(
        &self,
        hint: Hint,
        kinds: KindSet,
        body: &mut Body,
    ) -> Option<ContentKind> {
        let head = &body.bytes[..body.bytes.len().min(sniff::HEAD)];
        let sniffed = self
            .readers
            .iter()
            .find(|reader| reader.sniff(head))
            .map(|reader| reader.kind());
        let kind = match (sniffed, hint) {
            (Some(kind), _) | (None, Hint::Kind(kind)) => kind,
            (None, Hint::Unknown) if body.content_type.is_empty() => ContentKind::Html,
            (None, Hint::Unknown | Hint::Other) => return None,
        };
        if !kinds.contains(kind) {
            return None;
        }
        let reader = self.reader(kind)?;
        if body.bytes.len() > reader.body_limit() || body.truncated {
            match reader.over_limit() {
                OverLimit::Cut => {
                    body.bytes.truncate(reader.body_limit());
                    body.truncated = true;
                }
                OverLimit::Refuse => {
                    body.bytes = Vec::new();
                    body.truncated = true;
                }
            }
        }
        Some(kind)
    }
}

/// `Accept` for `kinds`: each reader's part, then anything at a low weight (an answer of
/// another type is still stored, with its status and headers).
fn accept_header(readers: &[Box<dyn KindReader>], kinds: KindSet) -> HeaderValue {
    // In the kinds' own order (pages first), not the registry's sniffing order.
    let mut parts: Vec<&str> = kinds
        .iter()
        .filter_map(|kind| readers.iter().find(|reader| reader.kind() == kind))
        .map(|reader| reader.accept())
        .collect();
    parts.push("*/*;q=0.1");
    HeaderValue::from_str(&parts.join(",")).unwrap_or_else(|_| HeaderValue::from_static("*/*"))
}

#[cfg(test)]
mod tests;
