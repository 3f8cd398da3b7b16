//! Circuit breakers per host, as the polite crawls we learn from ran them: a host whose
//! answers turn bad is left alone before it is hurt more.
//!
//! - More than [`ERROR_RATE`] of the host's requests in the last [`WINDOW`] failed (with at
//!   least [`MIN_SAMPLE`] requests in the window, so one early failure is not 100%): the host
//!   pauses (a minute by default: `breaker_pause_ms`).
//! - [`HALT_AFTER`] failures in a row: the host is halted for the rest of the run, and the
//!   crawl says so.
//!
//! Failures are 429, 5xx, timeouts and connection failures; 2xx, 3xx, 304 and 4xx are answers.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

/// The span of the error-rate window.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);
/// The error rate above which a host pauses.
pub(crate) const ERROR_RATE: f64 = 0.10;
/// Requests the window must hold before its error rate counts.
pub(crate) const MIN_SAMPLE: usize = 10;
/// Failures in a row that halt a host.
pub(crate) const HALT_AFTER: u32 = 50;

/// What the breaker decides after a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trip {
    /// Carry on.
    Closed,
    /// Leave the host alone until then.
    PauseUntil(Instant),
    /// Stop crawling the host in this run.
    Halt,
}

/// One host's recent outcomes.
#[derive(Clone, Debug)]
pub(crate) struct Breaker {
    window: VecDeque<(Instant, bool)>,
    /// How many of `window`'s requests failed, kept as it changes: a fast host has tens of
    /// thousands of requests in the window, too many to count on every request.
    window_failures: usize,
    failures_in_row: u32,
    pause: Duration,
}

impl Breaker {
    /// A closed breaker that pauses its host for `pause` when it trips.
    pub(crate) fn new(pause: Duration) -> Self {
        Self {
            window: VecDeque::new(),
            window_failures: 0,
            failures_in_row: 0,
            pause,
        }
    }

    /// Records a request that ended at `now`, failed or not, and says what to do.
    pub(crate) fn record(&mut self, now: Instant, failed: bool) -> Trip {
        self.failures_in_row = if failed { self.failures_in_row + 1 } else { 0 };
        if self.failures_in_row >= HALT_AFTER {
            return Trip::Halt;
        }
        while let Some(&(at, old_failed)) = self.window.front() {
            if now.duration_since(at) < WINDOW {
                break;
            }
            self.window.pop_front();
            self.window_failures -= usize::from(old_failed);
        }
        self.window.push_back((now, failed));
        self.window_failures += usize::from(failed);
        let errors = self.window_failures;
        let total = self.window.len();
        if failed && total >= MIN_SAMPLE && errors as f64 > ERROR_RATE * total as f64 {
            // The window starts afresh after the pause: the same errors do not trip it twice.
            self.window.clear();
            self.window_failures = 0;
            return Trip::PauseUntil(now + self.pause);
        }
        Trip::Closed
    }

    /// Failures in a row so far.
    pub(crate) fn failures_in_row(&self) -> u32 {
        self.failures_in_row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAUSE: Duration = Duration::from_secs(60);

    #[tokio::test(start_paused = true)]
    async fn trips_just_above_ten_percent_in_the_window() {
        let mut breaker = Breaker::new(PAUSE);
        let step = Duration::from_millis(500);
        // Errors as the 10th and the 20th request: 10% each time, not more.
        for i in 0..20 {
            tokio::time::advance(step).await;
            let failed = i == 9 || i == 19;
            assert_eq!(breaker.record(Instant::now(), failed), Trip::Closed, "{i}");
        }
        // A third error among 21: 14.3% > 10%.
        tokio::time::advance(step).await;
        assert_eq!(
            breaker.record(Instant::now(), true),
            Trip::PauseUntil(Instant::now() + PAUSE)
        );
        // The window starts afresh: its earlier errors are not counted again.
        for _ in 0..9 {
            tokio::time::advance(step).await;
            assert_eq!(breaker.record(Instant::now(), false), Trip::Closed);
        }
        tokio::time::advance(step).await;
        assert_eq!(
            breaker.record(Instant::now(), true),
            Trip::Closed,
            "1 of 10 since the pause"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn old_errors_leave_the_window() {
        let mut breaker = Breaker::new(PAUSE);
        for _ in 0..9 {
            assert_eq!(breaker.record(Instant::now(), false), Trip::Closed);
        }
        assert_eq!(
            breaker.record(Instant::now(), true),
            Trip::Closed,
            "1 of 10"
        );
        tokio::time::advance(WINDOW).await;
        for _ in 0..9 {
            assert_eq!(breaker.record(Instant::now(), false), Trip::Closed);
        }
        // The first error is over a minute old: 1 of 10 again, not 2 of 20... nor 2 of 11.
        assert_eq!(breaker.record(Instant::now(), true), Trip::Closed);
    }

    #[tokio::test(start_paused = true)]
    async fn too_few_requests_never_trip_but_fifty_failures_in_a_row_halt() {
        let mut breaker = Breaker::new(PAUSE);
        // Failures spaced over a minute apart: never 10 in the window, never paused.
        for i in 1..HALT_AFTER {
            tokio::time::advance(WINDOW).await;
            assert_eq!(breaker.record(Instant::now(), true), Trip::Closed, "{i}");
        }
        assert_eq!(breaker.failures_in_row(), HALT_AFTER - 1);
        tokio::time::advance(WINDOW).await;
        assert_eq!(breaker.record(Instant::now(), true), Trip::Halt);
        assert_eq!(
            breaker.record(Instant::now(), false),
            Trip::Closed,
            "reset by an answer"
        );
        assert_eq!(breaker.failures_in_row(), 0);
    }
}
