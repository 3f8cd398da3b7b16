//! [`BuildProgress`]: how far a build's write pass is, for a caller that shows it (the
//! `indexer` binary's bar). The library itself never prints it.

use std::sync::atomic::{AtomicU64, Ordering};

/// The documents of a build's write pass (pass 3): how many there are and how many are done
/// (written, found unchanged, or unreadable). A build updates it; another thread reads it at
/// any time. `total` is 0 until the write pass starts; at the end of a build that succeeded,
/// `done` equals `total`.
#[derive(Debug, Default)]
pub struct BuildProgress {
    total: AtomicU64,
    done: AtomicU64,
}

impl BuildProgress {
    /// Nothing done yet, total unknown (0).
    pub fn new() -> Self {
        Self::default()
    }

    /// The documents the write pass goes through (0 before it starts).
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// The documents it went through so far.
    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// The write pass starts with `total` documents.
    pub(crate) fn start(&self, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    /// One more document done.
    pub(crate) fn advance(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starting_sets_the_total_and_resets_what_is_done() {
        let progress = BuildProgress::new();
        assert_eq!((progress.total(), progress.done()), (0, 0));
        progress.start(3);
        progress.advance();
        progress.advance();
        assert_eq!((progress.total(), progress.done()), (3, 2));
        progress.start(5);
        assert_eq!((progress.total(), progress.done()), (5, 0));
    }
}
