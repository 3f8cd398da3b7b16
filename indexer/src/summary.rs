//! `summary`: [`BuildSummary`], what a build did, and its one-line form; a sharded build's
//! summary adds up its shards'. [`ExchangeSummary`]: what an exchanging build's round moved.

use std::fmt;
use std::time::Duration;

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// The generation written or updated (`gen-NNNNNN`).
    pub generation: String,
    /// Stored pages written since the build this one updates (every page, for a new
    /// generation): what the build had to look at again.
    pub changed_pages: u64,
    /// The newest store change number the index now holds ([`shared::PageRecord::change`]).
    pub store_change: u64,
    /// Documents added or replaced.
    pub indexed: u64,
    /// Documents removed: their page is gone, became `noindex`, or is now a duplicate.
    pub deleted: u64,
    /// Documents left as they were.
    pub unchanged: u64,
    /// Pages not indexed because they asked for `noindex`.
    pub skipped_noindex: u64,
    /// Pages folded into another page's document (same content, or a `rel=canonical`
    /// naming a page of it).
    pub skipped_duplicates: u64,
    /// Pages not indexed otherwise: non-2xx, redirects, failed fetches, empty bodies.
    pub skipped_other: u64,
    /// Documents in the generation after the build.
    pub total_docs: u64,
    /// Images in the generation's image index after the build.
    pub images: u64,
    /// How long the build took.
    pub elapsed: Duration,
    /// What the exchange moved, when the build exchanged link signals (`--redis`).
    pub exchange: Option<ExchangeSummary>,
}

/// What one machine's exchange round moved, and the most it held at once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExchangeSummary {
    /// Contributions (a source page's links to one partition) sent to other machines.
    pub sent: u64,
    /// Contributions that arrived from other machines.
    pub arrived: u64,
    /// Their URLs' and anchors' bytes (estimated as the budget counts them).
    pub arrived_bytes: u64,
    /// Sorted runs the arrived contributions were spilled to (0: they fitted the budget).
    pub spilled_runs: u64,
    /// The most bytes of contributions held in memory at once, sending or receiving: the
    /// budget, past which they are sent or spilled, plus at most one contribution.
    pub most_held: u64,
}

impl fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} documents ({} indexed, {} unchanged, {} deleted; skipped {} noindex, {} duplicates, {} other; {} pages changed since the last build, up to store change {}), {} images in {:.1?}",
            self.generation,
            self.total_docs,
            self.indexed,
            self.unchanged,
            self.deleted,
            self.skipped_noindex,
            self.skipped_duplicates,
            self.skipped_other,
            self.changed_pages,
            self.store_change,
            self.images,
            self.elapsed
        )?;
        match &self.exchange {
            Some(exchange) => write!(f, "; {exchange}"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for ExchangeSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exchanged {} contributions out, {} in ({:.1} MiB, {} runs spilled), at most {:.1} MiB held",
            self.sent,
            self.arrived,
            mib(self.arrived_bytes),
            self.spilled_runs,
            mib(self.most_held)
        )
    }
}

/// Bytes in mebibytes, for people.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

impl BuildSummary {
    /// The summary of two shards' builds together: counts added, the newest store change,
    /// the generations named one after the other.
    pub(crate) fn add(self, other: BuildSummary) -> BuildSummary {
        BuildSummary {
            generation: format!("{}, {}", self.generation, other.generation),
            changed_pages: self.changed_pages + other.changed_pages,
            store_change: self.store_change.max(other.store_change),
            indexed: self.indexed + other.indexed,
            deleted: self.deleted + other.deleted,
            unchanged: self.unchanged + other.unchanged,
            skipped_noindex: self.skipped_noindex + other.skipped_noindex,
            skipped_duplicates: self.skipped_duplicates + other.skipped_duplicates,
            skipped_other: self.skipped_other + other.skipped_other,
            total_docs: self.total_docs + other.total_docs,
            images: self.images + other.images,
            elapsed: self.elapsed.max(other.elapsed),
            exchange: self.exchange.or(other.exchange),
        }
    }
}
