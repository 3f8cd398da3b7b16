//! The live status of `crawler crawl` at a terminal: an indicatif bar of pages stored out of
//! pages stored + frontier, its message the crawl's [`figures`], updated four times a second
//! from the crawl's progress channel and cleared when the crawl ends. Nothing is drawn when
//! stderr is not a terminal (logs and scripts keep the monitoring JSON line alone).

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::sync::watch;
use tokio::time::Instant;

use super::figures;
use crate::crawl::CrawlProgress;

/// How often the bar is updated (and at most redrawn).
const REFRESH: Duration = Duration::from_millis(250);
/// Redraws per second at most.
const REDRAW_HZ: u8 = 4;
/// The rate shown is the pages fetched over about this long.
const RATE_WINDOW: Duration = Duration::from_secs(5);
/// The bar's layout: spinner, time since the start, bar, figures.
const TEMPLATE: &str = "{spinner} crawl [{elapsed_precise}] {bar:20} {msg}";

/// Whether people are watching, so a live bar is wanted: stderr is a terminal.
pub(crate) fn wanted() -> bool {
    std::io::stderr().is_terminal()
}

/// Draws `bar` on stderr (it may be created hidden, so that logging can be set up to write
/// above it first) and keeps it up to date from `progress`. When the crawl drops its sender
/// the bar is cleared; a caller that aborts this task instead clears the bar itself.
pub(crate) async fn follow(bar: ProgressBar, mut progress: watch::Receiver<CrawlProgress>) {
    bar.set_style(style());
    bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(REDRAW_HZ));
    let mut rate = Rate::default();
    let mut ticks = tokio::time::interval(REFRESH);
    loop {
        ticks.tick().await;
        if progress.has_changed().is_err() {
            break; // the crawl is over
        }
        let now = progress.borrow_and_update().clone();
        let per_sec = rate.push(Instant::now(), now.fetched);
        show(&bar, &now, per_sec);
    }
    bar.finish_and_clear();
}

/// Puts `now` and the rate on the bar.
fn show(bar: &ProgressBar, now: &CrawlProgress, per_sec: f64) {
    bar.set_length(now.pages_stored.saturating_add(now.frontier));
    bar.set_position(now.pages_stored);
    bar.set_message(figures(now, per_sec));
}

/// The bar's style ([`TEMPLATE`]; a plain bar if it ever failed to parse).
fn style() -> ProgressStyle {
    ProgressStyle::with_template(TEMPLATE).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// Pages fetched per second over the last [`RATE_WINDOW`], from samples of the fetched count.
#[derive(Debug, Default)]
struct Rate {
    samples: VecDeque<(Instant, u64)>,
}

impl Rate {
    /// Adds a sample and returns the rate since the oldest sample within the window (0 with
    /// a single sample).
    fn push(&mut self, at: Instant, fetched: u64) -> f64 {
        self.samples.push_back((at, fetched));
        while self.samples.len() > 1
            && self
                .samples
                .front()
                .is_some_and(|&(first, _)| at.duration_since(first) > RATE_WINDOW)
        {
            self.samples.pop_front();
        }
        let Some(&(first_at, first_fetched)) = self.samples.front() else {
            return 0.0;
        };
        let secs = at.duration_since(first_at).as_secs_f64();
        if secs <= 0.0 {
            return 0.0;
        }
        fetched.saturating_sub(first_fetched) as f64 / secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }

    #[test]
    fn the_rate_is_over_the_last_five_seconds() {
        let start = Instant::now();
        let at = |secs| start + Duration::from_secs(secs);
        let mut rate = Rate::default();
        assert_eq!(rate.push(at(0), 100), 0.0, "one sample: no rate yet");
        assert_eq!(rate.push(at(2), 120), 10.0);
        assert_eq!(rate.push(at(4), 140), 10.0);
        assert_eq!(
            rate.push(at(5), 150),
            10.0,
            "the first sample is 5 s old: kept"
        );
        // At 8 s the samples of 0 and 2 s are older than the window: 4 s is the oldest.
        assert_eq!(rate.push(at(8), 160), 5.0);
        // At 10 s the sample of 4 s leaves too; 5 s is the oldest.
        assert_eq!(rate.push(at(10), 200), 10.0);
    }

    #[test]
    fn the_bar_counts_stored_pages_out_of_stored_and_queued() {
        let bar = ProgressBar::hidden();
        let now = CrawlProgress {
            pages_stored: 30,
            fetched: 10,
            errors: 2,
            frontier: 70,
        };
        show(&bar, &now, 4.0);
        assert_eq!(bar.position(), 30);
        assert_eq!(bar.length(), Some(100));
        assert_eq!(
            bar.message(),
            "30 pages stored, 4 pages/s, 70 in the frontier, 2 errors"
        );
    }
}
