//! A PDF's bytes to its text and metadata, in the child. `lopdf` parses (it bounds nesting
//! and follows `/Prev` and page-tree references with loop checks); `pdf-extract` turns each
//! page's content stream into text through the fonts' encodings. Neither is trusted: this
//! runs only in the child, under its limits, and each page runs under `catch_unwind`, so a
//! page that panics (a missing `/MediaBox` is an `expect` in `pdf-extract`) costs that page
//! only.

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};

use pdf_extract::{Document, Object, ObjectId, OutputDev, PlainTextOutput};

use super::info::read_info;
use super::limits::ChildLimits;
use super::outcome::PdfDocument;
use super::wire::ChildReport;

/// The most `/Parent` links followed from a page ( `lopdf`'s own page-tree depth limit).
const MAX_TREE_DEPTH: usize = 256;

/// Reads `bytes` as a PDF within `limits`' page and text caps.
pub(crate) fn extract(bytes: &[u8], limits: &ChildLimits) -> ChildReport {
    // The header where `lopdf` looks for it: at the start (a file with bytes before it is
    // one that `lopdf` cannot read anyway).
    if !bytes.starts_with(b"%PDF-") {
        return ChildReport::NotPdf;
    }
    let doc = match Document::load_mem(bytes) {
        Ok(doc) => doc,
        Err(error) => return ChildReport::Malformed(error.to_string()),
    };
    // lopdf decrypts while loading when the user password is empty; `was_encrypted` says so.
    if doc.trailer.get(b"Encrypt").is_ok() && !doc.was_encrypted() {
        return ChildReport::Encrypted;
    }
    let pages = doc.get_pages();
    if pages.is_empty() {
        // No catalog, no page tree, or one that leads nowhere (its kids only itself).
        return ChildReport::Malformed("no page is found in the page tree".into());
    }
    let mut document = PdfDocument {
        pages: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        ..PdfDocument::default()
    };
    read_info(&doc, &mut document);
    if let Some(&page) = pages.values().find(|&&page| !parents_end(&doc, page)) {
        return ChildReport::Malformed(format!(
            "the page tree loops or is over {MAX_TREE_DEPTH} deep above page object {} {}",
            page.0, page.1
        ));
    }
    let mut text = CappedText::new(limits.max_text_bytes);
    for &number in pages.keys().take(limits.max_pages as usize) {
        if number > 1 {
            // Pages apart by a blank line; a cap reached here is found on the next write.
            let _ = text.write_all(b"\n\n");
        }
        let read = catch_unwind(AssertUnwindSafe(|| {
            let mut sink: &mut dyn Write = &mut text;
            let mut output = PlainTextOutput::new(&mut sink as &mut dyn Write);
            pdf_extract::output_doc_page(&doc, &mut output as &mut dyn OutputDev, number)
        }));
        if text.full {
            break;
        }
        if matches!(read, Ok(Ok(()))) {
            document.pages_read += 1;
        }
    }
    document.cut = text.full || pages.len() > limits.max_pages as usize;
    let text = text.into_string();
    document.text = text.trim().to_string();
    ChildReport::Read(document)
}

/// Whether following `/Parent` up from `page` ends within [`MAX_TREE_DEPTH`] steps: a tree
/// that is its own parent would send `pdf-extract`'s inherited-attribute lookup (recursive,
/// unchecked) into a stack overflow.
fn parents_end(doc: &Document, page: ObjectId) -> bool {
    let mut node = page;
    for _ in 0..=MAX_TREE_DEPTH {
        let parent = doc
            .get_dictionary(node)
            .ok()
            .and_then(|dictionary| dictionary.get(b"Parent").ok());
        match parent {
            Some(Object::Reference(id)) => node = *id,
            _ => return true,
        }
    }
    false
}

/// Text up to a cap: a write that would pass it is refused whole (so the text stays UTF-8:
/// `pdf-extract` writes whole `&str`s) and marks the text full.
struct CappedText {
    bytes: Vec<u8>,
    cap: usize,
    full: bool,
}

impl CappedText {
    fn new(cap: usize) -> Self {
        Self {
            bytes: Vec::new(),
            cap,
            full: false,
        }
    }

    fn into_string(self) -> String {
        match String::from_utf8(self.bytes) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        }
    }
}

impl Write for CappedText {
    fn write(&mut self, chunk: &[u8]) -> std::io::Result<usize> {
        if self.full || self.bytes.len().saturating_add(chunk.len()) > self.cap {
            self.full = true;
            return Err(std::io::Error::other("the text cap is reached"));
        }
        self.bytes.extend_from_slice(chunk);
        Ok(chunk.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
