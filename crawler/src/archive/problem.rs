//! What an import skips as damaged, and where: a record the `warc` crate could not read
//! ([`warc::Damage`]), or a response record whose archived HTTP answer could not be read.

use std::fmt;

use warc::{Damage, Position};

use super::http::HttpError;

/// Why a record (or the bytes where one should be) was skipped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImportDamage {
    /// The record itself is damaged (or the gzip member holding it).
    #[error(transparent)]
    Record(#[from] Damage),
    /// A response whose HTTP cannot be read.
    #[error("response not imported: {0}")]
    Http(#[from] HttpError),
}

/// A damaged record or member of a file, skipped: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where it is.
    pub at: Position,
    /// What is wrong.
    pub damage: ImportDamage,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}, skipped", self.at, self.damage)
    }
}
