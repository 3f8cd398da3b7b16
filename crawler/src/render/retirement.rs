//! Why a browser is replaced, and the warning when its memory bound is too low for the pages
//! rendered at once: each of them has a renderer process of its own (a few hundred MiB on a
//! large page), so a bound sized for 2 pages at once replaces a browser running 12 every few
//! dozen pages, and every replacement waits for the old browser's pages and processes.

use std::sync::atomic::{AtomicU32, Ordering};

/// Browsers retired for memory this many times in a row, each early, make the warning.
const EARLY_IN_A_ROW: u32 = 3;

/// Why a browser is retired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Retirement {
    /// A tab could not be closed or opened, or the browser's pipe broke.
    Failed,
    /// It rendered its `render_recycle_pages` pages.
    Recycled { pages: u32 },
    /// Its processes use more than `render_max_browser_bytes`.
    TooBig { bytes: u64 },
}

impl std::fmt::Display for Retirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Failed => write!(f, "it failed"),
            Self::Recycled { pages } => write!(f, "{pages} pages rendered"),
            Self::TooBig { bytes } => write!(f, "it uses {bytes} bytes"),
        }
    }
}

/// Counts browsers retired for memory before a quarter of their page budget, in a row.
#[derive(Debug, Default)]
pub(super) struct BoundWatch {
    early_in_a_row: AtomicU32,
}

impl BoundWatch {
    /// Records a browser retired after `pages` pages of its `recycle_pages`; `true` when this
    /// retirement makes [`EARLY_IN_A_ROW`] early ones for memory in a row (said once per
    /// such run: the count starts again after it).
    pub(super) fn bound_too_low(&self, why: Retirement, pages: u32, recycle_pages: u32) -> bool {
        let early = matches!(why, Retirement::TooBig { .. }) && pages < recycle_pages / 4;
        if !early {
            self.early_in_a_row.store(0, Ordering::Relaxed);
            return false;
        }
        let in_a_row = self.early_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
        if in_a_row >= EARLY_IN_A_ROW {
            self.early_in_a_row.store(0, Ordering::Relaxed);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: Retirement = Retirement::TooBig { bytes: 3 << 30 };

    #[test]
    fn three_early_retirements_for_memory_in_a_row_say_the_bound_is_too_low() {
        let watch = BoundWatch::default();
        assert!(!watch.bound_too_low(BIG, 32, 500));
        assert!(!watch.bound_too_low(BIG, 48, 500));
        assert!(watch.bound_too_low(BIG, 16, 500));
        // Said once; three more in a row say it again.
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(watch.bound_too_low(BIG, 16, 500));
    }

    #[test]
    fn a_late_or_other_retirement_breaks_the_run() {
        let watch = BoundWatch::default();
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        // A browser that lasted a quarter of its budget: one big page now and then.
        assert!(!watch.bound_too_low(BIG, 125, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(!watch.bound_too_low(Retirement::Failed, 3, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
        let recycled = Retirement::Recycled { pages: 500 };
        assert!(!watch.bound_too_low(recycled, 500, 500));
        assert!(!watch.bound_too_low(BIG, 16, 500));
    }

    #[test]
    fn reasons_read_as_the_log_says_them() {
        assert_eq!(Retirement::Failed.to_string(), "it failed");
        assert_eq!(
            Retirement::Recycled { pages: 500 }.to_string(),
            "500 pages rendered"
        );
        assert_eq!(
            Retirement::TooBig {
                bytes: 2_200_000_000
            }
            .to_string(),
            "it uses 2200000000 bytes"
        );
    }
}
