//! The kinds of content the crawler reads, and sets of them.
//!
//! A kind is what a body is, by its bytes (a server's `Content-Type` is only a hint): an
//! HTML page, an image, a PDF. The crawler reads each kind in its own module
//! (`crawler/src/kind/`); which kinds a crawl reads is set per crawl and per host
//! (`kinds = ["html", "pdf"]`), and a page record says which kind it holds
//! ([`PageRecord::kind`](crate::PageRecord::kind)).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a body is.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum ContentKind {
    /// An HTML or XHTML page (and any text answer read as one).
    #[default]
    Html,
    /// A raster or vector image: its size and a thumbnail are kept, not its bytes.
    Image,
    /// A PDF document: its text and metadata are kept.
    Pdf,
}

impl ContentKind {
    /// Every kind, in the order of [`ContentKind::name`]'s list.
    pub const ALL: [ContentKind; 3] = [ContentKind::Html, ContentKind::Image, ContentKind::Pdf];

    /// The name config files and reports use.
    pub fn name(self) -> &'static str {
        match self {
            ContentKind::Html => "html",
            ContentKind::Image => "image",
            ContentKind::Pdf => "pdf",
        }
    }

    /// The kind of a name ([`ContentKind::name`]), ASCII case ignored.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name.trim()))
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for ContentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of kinds: those a crawl, or one host, reads.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct KindSet(u8);

impl KindSet {
    /// No kind.
    pub const NONE: KindSet = KindSet(0);

    /// What a crawl reads unless its config says otherwise: pages and PDFs. A PDF link is
    /// fetched anyway (it is a link like any other), so reading it costs no request; images
    /// are requests of their own, so they are asked for.
    pub fn default_for_crawl() -> Self {
        Self::of(&[ContentKind::Html, ContentKind::Pdf])
    }

    /// The set of `kinds`.
    pub fn of(kinds: &[ContentKind]) -> Self {
        Self(kinds.iter().fold(0, |bits, kind| bits | kind.bit()))
    }

    /// The set as bits, one per kind (`1 << (kind as u8)`): below `1 << ContentKind::ALL.len()`.
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set of `bits` ([`KindSet::bits`]); bits of no kind are dropped.
    pub fn from_bits(bits: u8) -> Self {
        Self(bits & ((1 << ContentKind::ALL.len()) - 1))
    }

    /// Whether `kind` is in the set.
    pub fn contains(self, kind: ContentKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The set with `kind` taken out.
    pub fn without(self, kind: ContentKind) -> Self {
        Self(self.0 & !kind.bit())
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Its kinds, in [`ContentKind::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = ContentKind> {
        ContentKind::ALL
            .into_iter()
            .filter(move |kind| self.contains(*kind))
    }
}

impl fmt::Debug for KindSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_sets_hold_what_was_put_in() {
        for kind in ContentKind::ALL {
            assert_eq!(ContentKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(ContentKind::from_name(" PDF "), Some(ContentKind::Pdf));
        assert_eq!(ContentKind::from_name("video"), None);
        let set = KindSet::default_for_crawl();
        assert!(set.contains(ContentKind::Html) && set.contains(ContentKind::Pdf));
        assert!(!set.contains(ContentKind::Image));
        assert_eq!(
            set.without(ContentKind::Html).iter().collect::<Vec<_>>(),
            [ContentKind::Pdf]
        );
        assert!(KindSet::NONE.is_empty());
    }
}
