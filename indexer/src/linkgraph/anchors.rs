//! `Anchors`: every document's anchor texts, read from every link within a memory budget and
//! kept on disk until their document is written.
//!
//! While the [`LinkGraph`](super::LinkGraph) reads links, each link's text goes to a
//! [`Spill`] as an [`AnchorUse`] (the document it names, its source's key, the text), sorted
//! by document into runs on disk past the budget ([`Reading`]). Then the runs are merged and
//! one document's texts at a time are counted by the rules of the [module docs](super)
//! (distinct ignoring case, the ones most pages use first, ties in source URL order, bounded);
//! each document's kept texts are written to one file, `kept`, beside the runs, at an offset
//! per document ([`Anchors`]), and read back once, when the document is written.
//!
//! What it holds in memory: the budget while links are read, one document's texts while
//! they are counted, 8 bytes a document after. (Before, every document's distinct texts were
//! counted in memory at once, the largest share of a build's peak on a web of distinct
//! anchors, and growing with the pages that arrive from other machines.)

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shared::docplan::DocId;
use shared::record::Record;

use super::spill::{Spill, Spilled};
use super::{MAX_ANCHOR_BYTES, MAX_ANCHORS};
use crate::Error;

/// Distinct anchor texts counted per document (later new ones are not counted, so a page
/// linked with thousands of texts costs bounded memory while it is counted).
const MAX_COUNTED_ANCHORS: usize = 1_000;
/// What an [`AnchorUse`] costs in memory beyond its text's bytes.
const USE_OVERHEAD: usize = 40;

/// Where the anchor texts are spilled, and within how many bytes of memory: the directory
/// must outlive the graph (its file of kept texts is there).
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnchorSpill<'a> {
    /// An existing directory of the build's own.
    pub(crate) dir: &'a Path,
    /// Bytes of texts (estimated) held while links are read.
    pub(crate) budget: usize,
}

/// One link's anchor text as read: the document it counts for and its source's key.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnchorUse {
    doc: DocId,
    source: u32,
    text: String,
}

impl Record for AnchorUse {
    const KIND: &'static str = "spilled anchor text";
    const VERSION: u8 = 1;
}

/// Read back by document; a document's texts in the order the links were read.
impl Spilled for AnchorUse {
    fn order(&self, other: &Self) -> Ordering {
        self.doc.cmp(&other.doc)
    }

    fn size(&self) -> usize {
        USE_OVERHEAD + self.text.len()
    }
}

/// The anchor texts of every link, being read.
#[derive(Debug)]
pub(crate) struct Reading {
    spill: Spill<AnchorUse>,
    kept: PathBuf,
}

impl Reading {
    /// Nothing read yet.
    pub(crate) fn new(to: AnchorSpill<'_>) -> Self {
        Self {
            spill: Spill::new(to.dir, to.budget),
            kept: to.dir.join("kept"),
        }
    }

    /// The text of a link from `source` to `doc` (an empty one says nothing and is dropped).
    pub(crate) fn add(&mut self, doc: DocId, source: u32, text: &str) -> Result<(), Error> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(());
        }
        self.spill.push(AnchorUse {
            doc,
            source,
            text: text.to_string(),
        })
    }

    /// Counts each of `docs` documents' texts and writes the ones kept.
    pub(crate) fn finish(self, docs: usize) -> Result<Anchors, Error> {
        let io = |e| Error::io(&self.kept, e);
        let mut out = BufWriter::new(File::create(&self.kept).map_err(io)?);
        let mut offsets = Vec::with_capacity(docs + 1);
        offsets.push(0u64);
        let mut written = 0u64;
        let mut uses = self.spill.into_sorted()?.peekable();
        for doc in 0..docs as DocId {
            let mut counting = Counting::default();
            // This document's texts (and an error reading them, passed on).
            let this_doc =
                |next: &Result<AnchorUse, Error>| !matches!(next, Ok(next) if next.doc != doc);
            while let Some(next) = uses.next_if(this_doc) {
                let next = next?;
                counting.add(next.text, next.source);
            }
            let kept = counting.best();
            if !kept.is_empty() {
                let bytes = Kept(kept).encode();
                out.write_all(&bytes).map_err(io)?;
                written += bytes.len() as u64;
            }
            offsets.push(written);
        }
        out.flush().map_err(io)?;
        drop(out);
        let file = File::open(&self.kept).map_err(io)?;
        Ok(Anchors {
            path: self.kept,
            file,
            offsets,
        })
    }
}

/// One document's kept texts, as written to the file.
#[derive(Serialize, Deserialize)]
struct Kept(Vec<String>);

impl Record for Kept {
    const KIND: &'static str = "kept anchor texts";
    const VERSION: u8 = 1;
}

/// Every document's kept anchor texts, in a file, read back one document at a time.
#[derive(Debug)]
pub(crate) struct Anchors {
    path: PathBuf,
    file: File,
    /// Document `d`'s texts are the bytes `offsets[d]..offsets[d + 1]` (none when equal).
    offsets: Vec<u64>,
}

impl Anchors {
    /// The texts kept for `doc`, the ones most pages use first.
    pub(crate) fn of(&mut self, doc: DocId) -> Result<Vec<String>, Error> {
        let (Some(&start), Some(&end)) = (
            self.offsets.get(doc as usize),
            self.offsets.get(doc as usize + 1),
        ) else {
            return Ok(Vec::new());
        };
        if start == end {
            return Ok(Vec::new());
        }
        let io = |e| Error::io(&self.path, e);
        let mut bytes = vec![0u8; (end - start) as usize];
        self.file.seek(SeekFrom::Start(start)).map_err(io)?;
        self.file.read_exact(&mut bytes).map_err(io)?;
        Ok(Kept::decode(&bytes)?.0)
    }
}

/// An anchor text as counted: how many source pages used it, and the last one that did.
struct AnchorCount {
    text: String,
    pages: u32,
    last_source: u32,
}

/// One document's anchor texts being counted.
#[derive(Default)]
struct Counting {
    /// By lowercased text.
    index: HashMap<String, usize>,
    counted: Vec<AnchorCount>,
}

impl Counting {
    /// One link's text (trimmed, not empty) from `source`.
    fn add(&mut self, text: String, source: u32) {
        let key = text.to_lowercase();
        match self.index.get(&key) {
            Some(&i) => {
                let counted = &mut self.counted[i];
                if counted.last_source != source {
                    counted.pages += 1;
                    counted.last_source = source;
                }
            }
            None if self.counted.len() < MAX_COUNTED_ANCHORS => {
                self.index.insert(key, self.counted.len());
                self.counted.push(AnchorCount {
                    text,
                    pages: 1,
                    last_source: source,
                });
            }
            None => {}
        }
    }

    /// The texts most pages use, within [`MAX_ANCHORS`] and [`MAX_ANCHOR_BYTES`].
    fn best(mut self) -> Vec<String> {
        // Stable: ties keep the order the sources came in.
        self.counted.sort_by_key(|a| std::cmp::Reverse(a.pages));
        let mut bytes = 0;
        let mut kept = Vec::new();
        for anchor in self.counted {
            if kept.len() >= MAX_ANCHORS || bytes + anchor.text.len() > MAX_ANCHOR_BYTES {
                continue;
            }
            bytes += anchor.text.len();
            kept.push(anchor.text);
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    /// The texts of `uses` (doc, source, text), read within `budget`, kept per document.
    fn read_kept(
        uses: &[(DocId, u32, &str)],
        docs: usize,
        budget: usize,
    ) -> (Vec<Vec<String>>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let mut reading = Reading::new(AnchorSpill {
            dir: dir.path(),
            budget,
        });
        for &(doc, source, text) in uses {
            reading.add(doc, source, text).unwrap();
        }
        let runs = reading.spill.runs_written();
        let mut anchors = reading.finish(docs).unwrap();
        let kept = (0..docs as DocId).map(|d| anchors.of(d).unwrap()).collect();
        (kept, runs)
    }

    #[test]
    fn texts_spilled_in_runs_are_counted_as_texts_held_in_memory() {
        // Documents 0..8, sources in order; each document hears some texts from several
        // sources, some twice from one source, in varying case, some blank.
        let mut uses = Vec::new();
        for source in 0..40u32 {
            for doc in 0..8 {
                if (source + doc) % 3 == 0 {
                    continue;
                }
                let common = ["Home", "home", "Start"][(source % 3) as usize];
                uses.push((doc, source, common.to_string()));
                uses.push((doc, source, format!("page {doc} from {}", source % 5)));
                uses.push((doc, source, format!("page {doc} from {}", source % 5)));
                uses.push((doc, source, "   ".to_string()));
            }
        }
        let uses: Vec<(DocId, u32, &str)> =
            uses.iter().map(|(d, s, t)| (*d, *s, t.as_str())).collect();
        let (in_memory, runs) = read_kept(&uses, 9, usize::MAX);
        assert_eq!(runs, 0);
        let (spilled, runs) = read_kept(&uses, 9, 200);
        assert!(runs > 4, "{runs} runs");
        assert_eq!(spilled, in_memory);
        // Document 0 hears from the sources s % 3 of 1 ("home") and 2 ("Start"): 13 each,
        // "home" first seen.
        assert_eq!(in_memory[0][..2], ["home".to_string(), "Start".to_string()]);
        // Document 1 hears from s % 3 of 0 ("Home") and 1 ("home"): one text from 27
        // sources, written as first seen; then "page 1 from N" (twice a source, counted
        // once) from the sources s % 5 == N among those: 6 for N = 1 and 4, 5 for 0, 3 and
        // 2, ties in the order first seen (sources 1, 4; 0, 3, 7).
        assert_eq!(
            in_memory[1],
            [
                "Home",
                "page 1 from 1",
                "page 1 from 4",
                "page 1 from 0",
                "page 1 from 3",
                "page 1 from 2"
            ]
        );
        assert!(in_memory[8].is_empty(), "a document no link names");
    }

    #[test]
    fn a_documents_texts_are_bounded_in_number_and_bytes() {
        let long = "x".repeat(1000);
        let uses: Vec<(DocId, u32, String)> = (0..150)
            .map(|source| (0, source, format!("{long} {source}")))
            .collect();
        let uses: Vec<(DocId, u32, &str)> =
            uses.iter().map(|(d, s, t)| (*d, *s, t.as_str())).collect();
        let (kept, _) = read_kept(&uses, 1, 4096);
        // Each from one source: in source order, while 8 KiB hold them (1,002 bytes each).
        let expected: Vec<String> = (0..8).map(|source| format!("{long} {source}")).collect();
        assert_eq!(kept[0], expected);
        let many: Vec<String> = (0..150).map(|source| format!("s{source}")).collect();
        let uses: Vec<(DocId, u32, &str)> = (0..150)
            .map(|source| (0, source, many[source as usize].as_str()))
            .collect();
        let (kept, _) = read_kept(&uses, 1, 4096);
        assert_eq!(kept[0], many[..MAX_ANCHORS]);
    }
}
