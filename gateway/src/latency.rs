//! [`LatencyWindow`]: a replica's recent answer times, a bounded ring, and their 95th
//! percentile, after which a root hedges a call to that replica (see `hedge`).

use std::time::Duration;

/// Answer times kept: the newest this many; an older one is overwritten.
pub(crate) const WINDOW: usize = 128;

/// Samples needed before the window's own p95 is trusted; fewer give [`FALLBACK`].
pub(crate) const ENOUGH: usize = 16;

/// The p95 assumed before [`ENOUGH`] samples: long enough that a replica just started is
/// not hedged on every call, short enough that one already stalled is.
pub(crate) const FALLBACK: Duration = Duration::from_millis(50);

/// The least p95 given: below it a hedge would double nearly every call of a fast replica
/// for the sake of the scheduler's jitter.
pub(crate) const FLOOR: Duration = Duration::from_millis(3);

/// The newest [`WINDOW`] answer times of one replica.
#[derive(Clone, Debug, Default)]
pub(crate) struct LatencyWindow {
    /// The samples, in microseconds, oldest overwritten first.
    samples: Vec<u32>,
    /// Where the next sample goes once the ring is full.
    next: usize,
}

impl LatencyWindow {
    /// Keeps `took` among the newest samples.
    pub(crate) fn record(&mut self, took: Duration) {
        let micros = u32::try_from(took.as_micros()).unwrap_or(u32::MAX);
        if self.samples.len() < WINDOW {
            self.samples.push(micros);
        } else {
            self.samples[self.next] = micros;
        }
        self.next = (self.next + 1) % WINDOW;
    }

    /// Forgets every sample (the replica failed: it may come back another).
    pub(crate) fn clear(&mut self) {
        self.samples.clear();
        self.next = 0;
    }

    /// The 95th percentile of the samples (the nearest rank), at least [`FLOOR`];
    /// [`FALLBACK`] with fewer than [`ENOUGH`] samples.
    pub(crate) fn p95(&self) -> Duration {
        match self.measured_p95() {
            Some(p95) => p95.max(FLOOR),
            None => FALLBACK,
        }
    }

    /// The 95th percentile of the samples, once there are [`ENOUGH`] of them.
    pub(crate) fn measured_p95(&self) -> Option<Duration> {
        if self.samples.len() < ENOUGH {
            return None;
        }
        let mut sorted = self.samples.clone();
        // The nearest rank: the smallest sample at or above 95 % of them.
        let rank = (sorted.len() * 95).div_ceil(100).saturating_sub(1);
        let (_, p95, _) = sorted.select_nth_unstable(rank);
        Some(Duration::from_micros(u64::from(*p95)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(millis: impl IntoIterator<Item = u64>) -> LatencyWindow {
        let mut window = LatencyWindow::default();
        for ms in millis {
            window.record(Duration::from_millis(ms));
        }
        window
    }

    #[test]
    fn too_few_samples_give_the_fallback() {
        assert_eq!(window([]).p95(), FALLBACK);
        assert_eq!(window([1; ENOUGH - 1]).p95(), FALLBACK);
        assert_eq!(window([1; ENOUGH - 1]).measured_p95(), None);
    }

    #[test]
    fn the_p95_is_the_nearest_rank_of_the_window() {
        // 1..=100 ms: the 95th of them.
        let full = window((1..=100).rev());
        assert_eq!(full.samples.len(), 100);
        assert_eq!(full.p95(), Duration::from_millis(95));
        // Twenty samples: the 19th smallest.
        assert_eq!(window(1..=20).p95(), Duration::from_millis(19));
        // One slow answer in twenty-one is above the 95th percentile; two are not.
        let mut one_slow: Vec<u64> = vec![10; 20];
        one_slow.push(900);
        assert_eq!(window(one_slow.clone()).p95(), Duration::from_millis(10));
        one_slow.push(900);
        assert_eq!(window(one_slow).p95(), Duration::from_millis(900));
    }

    #[test]
    fn a_fast_replica_gets_the_floor() {
        assert_eq!(window([0; 40]).p95(), FLOOR);
    }

    #[test]
    fn the_window_keeps_only_the_newest_samples() {
        let mut slow_then_fast = window([500; WINDOW]);
        assert_eq!(slow_then_fast.p95(), Duration::from_millis(500));
        for _ in 0..WINDOW {
            slow_then_fast.record(Duration::from_millis(4));
        }
        assert_eq!(slow_then_fast.samples.len(), WINDOW, "bounded");
        assert_eq!(slow_then_fast.p95(), Duration::from_millis(4));
        // A few slow ones again: the 95th percentile of a window of 128 is its 7th
        // slowest sample.
        for _ in 0..6 {
            slow_then_fast.record(Duration::from_millis(700));
        }
        assert_eq!(slow_then_fast.p95(), Duration::from_millis(4));
        slow_then_fast.record(Duration::from_millis(700));
        assert_eq!(slow_then_fast.p95(), Duration::from_millis(700));
    }
}
