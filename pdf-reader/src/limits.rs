//! The bounds of one PDF's reading: what the parent enforces (input size, wall clock) and
//! what it hands the child to enforce on itself (memory, CPU, pages, text).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The bounds of reading one PDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PdfLimits {
    /// The address space the child may add to what it had mapped when it started
    /// (`RLIMIT_AS`): a flate bomb or a runaway parser dies on its allocator here.
    pub memory_bytes: u64,
    /// The CPU seconds the child may use (`RLIMIT_CPU`: `SIGXCPU`, then `SIGKILL` a second
    /// later): a parser looping on a hostile file ends here.
    pub cpu_secs: u64,
    /// The wall-clock time the parent gives the child, from its start to its answer; the parent
    /// kills it then (a child blocked rather than spinning).
    pub wall: Duration,
    /// The most pages read; the rest are counted but not read, and the text is marked cut.
    pub max_pages: u32,
    /// The most bytes of text kept (UTF-8, cut between characters); the text is marked cut.
    pub max_text_bytes: usize,
    /// The largest PDF handed to a child at all; a larger one is never sent.
    pub max_input_bytes: usize,
}

impl Default for PdfLimits {
    /// 256 MiB, 10 CPU seconds, 20 s, 2,000 pages, 1 MiB of text, 32 MiB of PDF.
    fn default() -> Self {
        Self {
            memory_bytes: 256 << 20,
            cpu_secs: 10,
            wall: Duration::from_secs(20),
            max_pages: 2_000,
            max_text_bytes: 1 << 20,
            max_input_bytes: 32 << 20,
        }
    }
}

impl PdfLimits {
    /// The part the child enforces on itself.
    pub(crate) fn for_child(&self) -> ChildLimits {
        ChildLimits {
            memory_bytes: self.memory_bytes,
            cpu_secs: self.cpu_secs.max(1),
            max_pages: self.max_pages,
            max_text_bytes: self.max_text_bytes,
            max_input_bytes: self.max_input_bytes,
        }
    }

    /// The most bytes of stdout the parent reads from a child: the frame of a text at its cap,
    /// every byte of it escaped in JSON (`\u00XX`, six bytes), plus the metadata and whatever
    /// else the process prints around the frame.
    pub(crate) fn max_answer_bytes(&self) -> usize {
        self.max_text_bytes
            .saturating_mul(6)
            .saturating_add(256 << 10)
    }
}

/// The limits the child applies to itself, as the parent hands them over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ChildLimits {
    /// See [`PdfLimits::memory_bytes`].
    pub(crate) memory_bytes: u64,
    /// See [`PdfLimits::cpu_secs`].
    pub(crate) cpu_secs: u64,
    /// See [`PdfLimits::max_pages`].
    pub(crate) max_pages: u32,
    /// See [`PdfLimits::max_text_bytes`].
    pub(crate) max_text_bytes: usize,
    /// See [`PdfLimits::max_input_bytes`].
    pub(crate) max_input_bytes: usize,
}

impl Default for ChildLimits {
    /// What `crawler pdf-text` run by hand applies: [`PdfLimits::default`]'s.
    fn default() -> Self {
        PdfLimits::default().for_child()
    }
}
