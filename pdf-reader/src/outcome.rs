//! What became of one PDF: its text and metadata, or the reason there are none, named as the
//! store and the reports name it ("too large", "parse timeout", "parse crash", "encrypted").

use serde::{Deserialize, Serialize};

/// A PDF's text and metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfDocument {
    /// `/Title` of the document information dictionary.
    pub title: Option<String>,
    /// `/Author`.
    pub author: Option<String>,
    /// `/Subject`.
    pub subject: Option<String>,
    /// `/Keywords`, as written (PDF gives no separator).
    pub keywords: Option<String>,
    /// `/CreationDate` as RFC 3339 (`2024-03-01T10:20:30+01:00`; `Z` when the file gives
    /// no zone), when it reads as a PDF date.
    pub created: Option<String>,
    /// Pages in the page tree.
    pub pages: u32,
    /// Pages whose text was read (at most the page cap; a page that failed is not counted).
    pub pages_read: u32,
    /// The text, pages apart by a blank line.
    pub text: String,
    /// Whether pages or text were left out at a cap.
    pub cut: bool,
}

/// What became of one PDF.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfOutcome {
    /// Read: text and metadata, perhaps cut at a cap.
    Read(PdfDocument),
    /// Over the input cap: never handed to a child.
    TooLarge {
        /// The PDF's size.
        bytes: usize,
        /// The cap.
        limit: usize,
    },
    /// The child ran past its CPU time (`SIGXCPU`, `SIGKILL`) or the wall-clock deadline,
    /// and was killed.
    ParseTimeout,
    /// The child died any other way (a signal such as `SIGABRT` when its allocator failed at
    /// the memory limit or its stack overflowed, or an exit without an answer), or its parser
    /// panicked; what is known of it.
    ParseCrash(String),
    /// Encrypted with a password that is not empty.
    Encrypted,
    /// Not a PDF (it does not start with a `%PDF-` header).
    NotPdf,
    /// A PDF its parser refused; the parser's reason.
    Malformed(String),
    /// No child could be started or talked to (the PDF is not to blame: worth a retry).
    ChildFailed(String),
}

impl PdfOutcome {
    /// The status in a word or two, as the store and reports name it.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Read(_) => "read",
            Self::TooLarge { .. } => "too large",
            Self::ParseTimeout => "parse timeout",
            Self::ParseCrash(_) => "parse crash",
            Self::Encrypted => "encrypted",
            Self::NotPdf => "not a pdf",
            Self::Malformed(_) => "malformed",
            Self::ChildFailed(_) => "child failed",
        }
    }
}
