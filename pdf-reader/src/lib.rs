//! PDF text, title and metadata, read in a child process so that a hostile PDF can kill only
//! that child: the crawl goes on, and the page is stored with what became of it.
//!
//! The parent ([`PdfReader::read`]) starts the crawler's own binary again as the hidden
//! subcommand `crawler pdf-text` (`searchd pdf-text` in `searchd demo`), writes the PDF's bytes
//! on its stdin and reads one answer frame from its stdout, bounded; it kills the child at the
//! wall-clock deadline and maps how the child ended to a [`PdfOutcome`]. At most a few children
//! run at once (one per core by default), so a burst of PDFs cannot fork-bomb the machine.
//!
//! The child ([`run_child`]) caps its own address space, CPU time and core dumps with
//! `setrlimit` before it reads a byte, reads stdin up to its input cap, and extracts text with
//! `pdf-extract` (over `lopdf`'s parser) up to a page and a text cap, one page at a time: a
//! page that fails or panics is skipped, the rest are read. `pdftotext` is not used: the
//! extraction is ours, in Rust.
//!
//! - `limits.rs`: [`PdfLimits`], and the part of them the child is handed.
//! - `confine.rs`: the child's `setrlimit` calls.
//! - `wire.rs`: what parent and child say to each other (limits in an environment
//!   variable, the answer as a tagged, length-prefixed JSON frame that other output around it
//!   cannot hide).
//! - `extract.rs`: bytes to text and metadata, in the child; `info.rs` the document
//!   information dictionary (title, author, dates).
//! - `entry.rs`: the child's `main`.
//! - `child.rs`: [`PdfReader`], the parent side; `outcome.rs` what it returns.
//!
//! Encrypted PDFs: a file whose user password is empty (the usual "no copying, no printing"
//! restriction, which every viewer opens without asking) is read, as `lopdf` decrypts it while
//! loading; any other is [`PdfOutcome::Encrypted`], and no password is tried.

mod child;
mod confine;
mod entry;
mod extract;
mod info;
mod limits;
mod outcome;
mod wire;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod tests;

pub use child::{ChildCommand, PdfReader};
pub use entry::run_child;
pub use limits::PdfLimits;
pub use outcome::{PdfDocument, PdfOutcome};
