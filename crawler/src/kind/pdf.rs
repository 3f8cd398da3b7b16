//! PDF documents: their text, title and metadata read in a child process under memory, CPU,
//! wall-clock, page and text limits ([`pdf_reader`]), so a hostile file kills only that child.
//! The text is kept as the page's body (searchable like a page's), the rest in its
//! [`PdfInfo`]; a PDF that could not be read is stored with why ("too large", "parse
//! timeout", "parse crash", "encrypted", "malformed").

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use shared::ContentKind;
use shared::config::CrawlerConfig;
use shared::record::{CompressedBody, MediaRecord, PdfInfo, PdfStatus};

use super::{Body, Findings, KindReader, OverLimit, ReadContext};
use crate::extract::Extracted;
use pdf_reader::{ChildCommand, PdfDocument, PdfLimits, PdfOutcome, PdfReader as Child};

/// Reads PDFs.
pub(crate) struct PdfReader {
    child: Child,
}

impl PdfReader {
    /// Reads PDFs of up to `max_pdf_bytes` by running `command` (this binary's `pdf-text`
    /// unless told otherwise).
    pub(crate) fn new(config: &CrawlerConfig, command: ChildCommand) -> Self {
        let limits = PdfLimits {
            max_input_bytes: config.max_pdf_bytes,
            ..PdfLimits::default()
        };
        Self {
            child: Child::new(command, limits),
        }
    }
}

impl KindReader for PdfReader {
    fn kind(&self) -> ContentKind {
        ContentKind::Pdf
    }

    fn media_types(&self) -> &'static [&'static str] {
        &["application/pdf", "application/x-pdf"]
    }

    fn accept(&self) -> &'static str {
        "application/pdf;q=0.8"
    }

    fn sniff(&self, head: &[u8]) -> bool {
        super::sniff::is_pdf(head)
    }

    fn body_limit(&self) -> usize {
        self.child.limits().max_input_bytes
    }

    fn over_limit(&self) -> OverLimit {
        // A PDF's cross-reference table is at its end: a cut file cannot be read.
        OverLimit::Refuse
    }

    fn read(&self, body: Body, context: ReadContext) -> BoxFuture<'static, Findings> {
        let child = self.child.clone();
        async move {
            let outcome = if body.truncated {
                PdfOutcome::TooLarge {
                    bytes: body.bytes.len(),
                    limit: child.limits().max_input_bytes,
                }
            } else {
                child.read(body.bytes).await
            };
            findings(outcome, &context)
        }
        .boxed()
    }
}

/// What a PDF's reading adds to its page: its text as the body and its record.
fn findings(outcome: PdfOutcome, context: &ReadContext) -> Findings {
    let (status, problem) = match &outcome {
        PdfOutcome::Read(_) => (PdfStatus::Read, None),
        PdfOutcome::TooLarge { bytes, limit } => (
            PdfStatus::TooLarge,
            Some(format!("over the limit of {limit} bytes ({bytes} read)")),
        ),
        PdfOutcome::ParseTimeout => (PdfStatus::ParseTimeout, None),
        PdfOutcome::ParseCrash(why) => (PdfStatus::ParseCrash, Some(why.clone())),
        PdfOutcome::ChildFailed(why) => (
            PdfStatus::ParseCrash,
            Some(format!("the reader could not run: {why}")),
        ),
        PdfOutcome::Encrypted => (PdfStatus::Encrypted, None),
        PdfOutcome::NotPdf => (PdfStatus::Malformed, Some("not a PDF".into())),
        PdfOutcome::Malformed(why) => (PdfStatus::Malformed, Some(why.clone())),
    };
    let PdfOutcome::Read(document) = outcome else {
        return Findings {
            media: Some(MediaRecord::Pdf(PdfInfo {
                status,
                problem,
                ..PdfInfo::default()
            })),
            ..Findings::default()
        };
    };
    let info = PdfInfo {
        status,
        problem,
        pages: document.pages,
        author: document.author.clone().unwrap_or_default(),
        subject: document.subject.clone().unwrap_or_default(),
        keywords: document.keywords.clone().unwrap_or_default(),
        text_truncated: document.cut,
    };
    Findings {
        extracted: extracted(&document, context),
        body: (!document.text.trim().is_empty()).then(|| CompressedBody::compress(&document.text)),
        media: Some(MediaRecord::Pdf(info)),
        thumbnail: None,
    }
}

/// What a page's reading would say of a PDF: its title (the document's, else its file name),
/// subject and keywords, and the hashes of its text that find copies.
fn extracted(document: &PdfDocument, context: &ReadContext) -> Extracted {
    let words: Vec<&str> = document.text.split_whitespace().collect();
    let title = document
        .title
        .as_deref()
        .map(str::trim)
        .filter(|title| !title.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| file_name(context));
    Extracted {
        title,
        description: document.subject.clone().unwrap_or_default(),
        keywords: document.keywords.clone().unwrap_or_default(),
        text_hash: xxhash_rust::xxh3::xxh3_64(words.join(" ").as_bytes()),
        simhash: shared::simhash::simhash(&document.text),
        ..Extracted::default()
    }
}

/// The last path segment of a URL, percent-decoded: `annual-report.pdf`.
fn file_name(context: &ReadContext) -> String {
    let path = context.url.as_url().path();
    let last = path.rsplit('/').next().unwrap_or(path);
    shared::url::percent_decode_lossy(last)
}
