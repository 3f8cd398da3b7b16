//! A crawl's progress for people: `figures` words the crawl's counts, for the line
//! [`report`] prints every few seconds (`searchd demo`, `progress/line.rs`) and for the live
//! bar of `crawler crawl` at a terminal (`progress/bar.rs`).

pub(crate) mod bar;
mod line;

pub use line::report;

use crate::crawl::CrawlProgress;

/// A crawl's figures in words: pages stored, `rate` (pages fetched per second), the frontier
/// and errors.
pub(crate) fn figures(now: &CrawlProgress, rate: f64) -> String {
    format!(
        "{} pages stored, {rate:.0} pages/s, {} in the frontier, {} errors",
        now.pages_stored, now.frontier, now.errors
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_name_each_count_and_round_the_rate() {
        let now = CrawlProgress {
            pages_stored: 1200,
            fetched: 300,
            errors: 3,
            frontier: 45,
        };
        assert_eq!(
            figures(&now, 12.6),
            "1200 pages stored, 13 pages/s, 45 in the frontier, 3 errors"
        );
    }
}
