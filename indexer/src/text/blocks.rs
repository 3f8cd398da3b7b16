//! Blocks: the open block elements of the extraction pass, and what is decided when one ends.
//!
//! Every block element (not inline, not void, not left out) opens a [`Frame`] that remembers
//! where its text starts in the body and counts its text, its link text and its links. When
//! it ends (its own end tag, or the end tag of an element around it: `<li>` without `</li>`),
//! three things are decided, in this order:
//!
//! 1. **Host template.** A block whose text (whitespace collapsed) hashes to one of the
//!    host's [`HostTemplate`] blocks, the text repeated on a large share of the host's pages,
//!    is taken out of the body: menus, breadcrumbs, banners, footers and widget labels that
//!    every page of a site carries, whatever their markup. Headings (`h1`-`h6`) and labels
//!    (`th`, `dt`) are never template blocks: "Synopsis", "Examples" or "Syntax:" on every
//!    page are the page's structure.
//!    Template blocks are taken out when the page ends, so a menu item and the menu around
//!    it are both judged on the text they were learned with.
//! 2. **Learning.** When the pass learns a template, the hash of every block of at most
//!    [`MAX_BLOCK_BYTES`] is recorded (see [`crate::template`]).
//! 3. **Link density.** A block with at least [`MIN_LINKS`] links whose words are at least
//!    [`LINK_PERCENT`] link words is *link-dense*: a menu, a breadcrumb trail, a language
//!    bar, but also a table of contents or an API index. It stays in the searchable body,
//!    and is only moved behind the page's other text in the snippet source
//!    ([`super::PageText::snippet_source`]), so a snippet never starts with it and a page that
//!    is all links still shows them. A link-dense block is judged on its own: its counts are
//!    not added to the block around it, which is then judged on the rest of its text.
//!
//! Frames are bounded ([`MAX_DEPTH`]); deeper blocks are read as part of the one around them.

use std::ops::Range;

use xxhash_rust::xxh3::{Xxh3, xxh3_64};

use super::Line;

/// Least links in a link-dense block: a sentence with one or two links is prose.
pub const MIN_LINKS: u32 = 3;
/// Least share of a block's words, in percent, that are link words for the block to be
/// link-dense. Words, not bytes: a breadcrumb trail's separators and a language bar's short
/// codes would weigh wrongly in bytes. A word is a run of text with a letter or digit.
/// Menus and breadcrumbs are 75-100% link words (the current page's name unlinked), a
/// language bar ("Available Languages: de | en | fr") 60-80% (two words unlinked), a tag or
/// see-also line ("Posted in a, b, c.") 60%, prose with links 5-40%.
pub const LINK_PERCENT: usize = 60;
/// Longest block text whose hash is learned or looked up: a template block is a menu or a
/// banner, not a page's content.
pub const MAX_BLOCK_BYTES: usize = 4 * 1024;
/// Most open frames; deeper blocks count as part of the deepest frame.
const MAX_DEPTH: usize = 512;
/// Most link-dense ranges remembered per page; later ones stay where they are.
const MAX_RANGES: usize = 1024;
/// Most block hashes recorded per page while learning.
const MAX_LEARNED: usize = 4096;

/// One open block element.
struct Frame {
    name: Box<str>,
    /// Body length when it opened: its text is `body[at..]`.
    at: usize,
    /// What the page's counters were when it opened, restored if it is taken out.
    code_bytes: usize,
    content_words: usize,
    /// Words, link words and links in it (link-dense blocks inside not counted).
    words: usize,
    link_words: usize,
    links: u32,
}

/// The open blocks and what was decided about the closed ones.
#[derive(Default)]
pub(super) struct Blocks<'t> {
    frames: Vec<Frame>,
    /// Frames not pushed because [`MAX_DEPTH`] was reached, still open.
    overflow: usize,
    /// Open `<a href>` elements.
    in_link: u32,
    template: Option<&'t HostTemplate>,
    /// Record block hashes (learning a template).
    learning: bool,
    /// Link-dense ranges of the body, in order, not overlapping.
    pub link_dense: Vec<Range<usize>>,
    /// Hashes of the blocks seen, when learning.
    pub learned: Vec<u64>,
    /// Bytes taken out because they were the host's template.
    pub template_bytes: usize,
    /// Template blocks to take out at the end, in order, not overlapping.
    template_out: Vec<Out>,
}

/// A template block to take out: its range of the body and what it added to the counters.
struct Out {
    range: Range<usize>,
    code_bytes: usize,
    content_words: usize,
}

/// The page counters a removed block's text is taken back from, and the positions in the
/// body that move when it goes.
pub(super) struct Counters<'a> {
    pub body: &'a mut Line,
    pub code_bytes: &'a mut usize,
    pub content_words: &'a mut Option<usize>,
    /// Where sections start in the body: those inside a removed block go, the rest move.
    pub section_starts: &'a mut Vec<usize>,
}

impl<'t> Blocks<'t> {
    /// Blocks that take out the blocks of `template`, if any, and record block hashes when
    /// `learning`.
    pub fn new(template: Option<&'t HostTemplate>, learning: bool) -> Self {
        Self {
            template: template.filter(|t| !t.is_empty()),
            learning,
            ..Self::default()
        }
    }

    /// A block element opens, at body length `at`, with the page's counters as they are.
    pub fn open(&mut self, name: &str, at: usize, code_bytes: usize, content_words: usize) {
        if self.frames.len() >= MAX_DEPTH {
            self.overflow += 1;
            return;
        }
        self.frames.push(Frame {
            name: name.into(),
            at,
            code_bytes,
            content_words,
            words: 0,
            link_words: 0,
            links: 0,
        });
    }

    /// A link (`<a href>`) opens.
    pub fn link_opens(&mut self) {
        self.in_link += 1;
        if let Some(frame) = self.frames.last_mut() {
            frame.links += 1;
        }
    }

    /// A link closes.
    pub fn link_closes(&mut self) {
        self.in_link = self.in_link.saturating_sub(1);
    }

    /// A text node was added to the body.
    pub fn text(&mut self, text: &str) {
        if let Some(frame) = self.frames.last_mut() {
            let words = text
                .split_whitespace()
                .filter(|word| word.chars().any(char::is_alphanumeric))
                .count();
            frame.words += words;
            if self.in_link > 0 {
                frame.link_words += words;
            }
        }
    }

    /// The end tag `name`: closes the innermost open block of that name and every block
    /// opened inside it. An end tag with no open block of its name closes nothing.
    pub fn close(&mut self, name: &str, counters: &mut Counters<'_>) {
        if self.overflow > 0 {
            self.overflow -= 1;
            return;
        }
        let Some(at) = self.frames.iter().rposition(|f| &*f.name == name) else {
            return;
        };
        while self.frames.len() > at {
            if let Some(frame) = self.frames.pop() {
                self.decide(frame, counters);
            }
        }
    }

    /// Closes every open block (the end of the page).
    pub fn close_all(&mut self, counters: &mut Counters<'_>) {
        while let Some(frame) = self.frames.pop() {
            self.decide(frame, counters);
        }
    }

    /// What becomes of a block that ends: see the module docs. A template block is only
    /// marked here and taken out at the end ([`Blocks::take_out_template`]), so the blocks
    /// around it are judged on the text they were learned with.
    fn decide(&mut self, frame: Frame, counters: &mut Counters<'_>) {
        let body = &counters.body.text;
        let at = frame.at.min(body.len());
        let text = body.get(at..).unwrap_or_default().trim_start();
        let label = matches!(
            &*frame.name,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th" | "dt"
        );
        if !text.is_empty() && text.len() <= MAX_BLOCK_BYTES && !label {
            let hash = block_hash(text);
            if self.template.is_some_and(|t| t.contains(hash)) {
                // Blocks inside it were marked or found link-dense: this one covers them.
                self.template_out.retain(|out| out.range.start < at);
                self.link_dense.retain(|range| range.start < at);
                if self.template_out.len() < MAX_RANGES {
                    self.template_out.push(Out {
                        range: at..body.len(),
                        code_bytes: counters.code_bytes.saturating_sub(frame.code_bytes),
                        content_words: counters
                            .content_words
                            .unwrap_or(0)
                            .saturating_sub(frame.content_words),
                    });
                }
                return;
            }
            if self.learning && self.learned.len() < MAX_LEARNED {
                self.learned.push(hash);
            }
        }
        let link_dense = frame.links >= MIN_LINKS
            && frame.words > 0
            && frame.link_words * 100 >= LINK_PERCENT * frame.words;
        if link_dense {
            let end = counters.body.text.len();
            self.link_dense.retain(|range| range.start < at);
            if self.link_dense.len() < MAX_RANGES && at < end {
                self.link_dense.push(at..end);
            }
            return;
        }
        if let Some(parent) = self.frames.last_mut() {
            parent.words += frame.words;
            parent.link_words += frame.link_words;
            parent.links += frame.links;
        }
    }

    /// Takes the marked template blocks out of the body and the page's counters (every
    /// block closed), and moves the link-dense ranges to where their text now is.
    pub fn take_out_template(&mut self, counters: &mut Counters<'_>) {
        let outs = std::mem::take(&mut self.template_out);
        if outs.is_empty() {
            return;
        }
        // A block's range starts before the space in front of its first word and ends after
        // its last word: cutting it exactly leaves single spaces between the words around it.
        let body = &counters.body.text;
        let mut kept = String::with_capacity(body.len());
        let mut at = 0;
        for out in &outs {
            let start = out.range.start.clamp(at, body.len());
            kept.push_str(body.get(at..start).unwrap_or_default());
            at = out.range.end.clamp(start, body.len());
            self.template_bytes += at - start;
            *counters.code_bytes = counters.code_bytes.saturating_sub(out.code_bytes);
            if let Some(words) = counters.content_words {
                *words = words.saturating_sub(out.content_words);
            }
        }
        kept.push_str(body.get(at..).unwrap_or_default());
        let lead = kept.len() - kept.trim_start().len();
        kept.drain(..lead);
        // Where a position of the old body is in the new one.
        let new_position = |position: usize| {
            let cut: usize = outs
                .iter()
                .map(|out| position.clamp(out.range.start, out.range.end) - out.range.start)
                .sum();
            (position - cut).saturating_sub(lead)
        };
        self.link_dense = std::mem::take(&mut self.link_dense)
            .into_iter()
            .map(|range| new_position(range.start)..new_position(range.end))
            .filter(|range| !range.is_empty() && kept.is_char_boundary(range.start))
            .collect();
        let removed = |at: usize| outs.iter().any(|out| out.range.contains(&at));
        let mut starts: Vec<usize> = counters
            .section_starts
            .iter()
            .filter(|&&at| !removed(at))
            .map(|&at| new_position(at))
            .filter(|&at| kept.is_char_boundary(at))
            .collect();
        starts.dedup();
        *counters.section_starts = starts;
        counters.body.text = kept;
    }
}

/// The blocks a site repeats on most of its pages (see `crate::template`): hashes of
/// their text, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostTemplate {
    blocks: Vec<u64>,
}

impl HostTemplate {
    /// A template of these block hashes.
    pub fn new(mut blocks: Vec<u64>) -> Self {
        blocks.sort_unstable();
        blocks.dedup();
        Self { blocks }
    }

    /// No blocks.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// How many blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// The block of this hash is part of the template.
    pub fn contains(&self, hash: u64) -> bool {
        self.blocks.binary_search(&hash).is_ok()
    }

    /// A hash of the whole template, 0 for none (part of a document's fingerprint).
    pub fn digest(&self) -> u64 {
        if self.blocks.is_empty() {
            return 0;
        }
        let mut h = Xxh3::new();
        for block in &self.blocks {
            h.update(&block.to_le_bytes());
        }
        h.digest()
    }
}

/// The hash a block's text is known by in a host's template.
pub fn block_hash(text: &str) -> u64 {
    xxh3_64(text.as_bytes())
}
