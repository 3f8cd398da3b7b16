//! Deadlines a hostile server cannot stretch: connecting, the headers, the whole request, and
//! a least transfer rate for the body, each cut-off named for what it was waiting on.
//!
//! A server that accepts and never answers is cut at the header deadline; one that sends its
//! headers and then one byte a second is cut when a transfer window ends below the least rate
//! (or, dripping faster, at the request deadline). The body's byte limit is the fetcher's.

use std::fmt;
use std::num::NonZeroU64;
use std::time::Duration;

use shared::config::CrawlerConfig;
use tokio::time::Instant;

/// The deadlines of one fetch, from the crawler config.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadlines {
    /// TCP connect (enforced by the HTTP client's connector).
    pub connect: Duration,
    /// From sending the request to its answer's headers.
    pub headers: Duration,
    /// From sending the request to the last byte of its body.
    pub request: Duration,
    /// The least body transfer rate, when there is one.
    pub min_rate: Option<MinRate>,
}

/// A least transfer rate: at least `bytes_per_sec` on average over every `window`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MinRate {
    /// Bytes per second.
    pub bytes_per_sec: NonZeroU64,
    /// The span the rate is measured over.
    pub window: Duration,
}

impl Deadlines {
    /// From the crawler config.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            connect: config.connect_timeout,
            headers: config.header_timeout,
            request: config.request_timeout,
            min_rate: config.min_transfer_rate.map(|bytes_per_sec| MinRate {
                bytes_per_sec,
                window: config.transfer_window,
            }),
        }
    }

    /// When the headers of a request sent at `sent` must have come, and the cut-off named if
    /// they have not (the request deadline when it is the nearer).
    pub(crate) fn headers_due(&self, sent: Instant) -> (Instant, Cutoff) {
        if self.headers < self.request {
            (sent + self.headers, Cutoff::Headers(self.headers))
        } else {
            (sent + self.request, Cutoff::Request(self.request))
        }
    }
}

/// Why a fetch was cut off before its answer was whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cutoff {
    /// No connection within the connect timeout.
    Connect(Duration),
    /// Connected, but no headers within the header deadline.
    Headers(Duration),
    /// The body was not whole by the request deadline.
    Request(Duration),
    /// The body came slower than the least transfer rate.
    Dripped(MinRate),
}

impl Cutoff {
    /// A short name of the kind, for error counters: `timeout`, or `slow` for a drip.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Cutoff::Dripped(_) => "slow",
            Cutoff::Connect(_) | Cutoff::Headers(_) | Cutoff::Request(_) => "timeout",
        }
    }
}

impl fmt::Display for Cutoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cutoff::Connect(after) => write!(f, "timed out after {} connecting", span(*after)),
            Cutoff::Headers(after) => {
                write!(f, "timed out after {} waiting for headers", span(*after))
            }
            Cutoff::Request(after) => write!(
                f,
                "timed out after {}: the answer was not whole",
                span(*after)
            ),
            Cutoff::Dripped(rate) => write!(
                f,
                "dripped under {}/s over {}",
                super::byte_size(rate.bytes_per_sec.get()),
                span(rate.window)
            ),
        }
    }
}

/// `30 s`, `1.5 s`, `250 ms`.
fn span(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

/// Measures a body's transfer rate window by window: the bytes of each window must reach the
/// least rate, or the transfer is cut when the window ends.
#[derive(Debug)]
pub(crate) struct RateMeter {
    min: Option<MinRate>,
    window_start: Instant,
    bytes_at_start: u64,
    bytes: u64,
}

impl RateMeter {
    /// A meter whose first window starts at `now` (when the headers came).
    pub(crate) fn new(min: Option<MinRate>, now: Instant) -> Self {
        Self {
            min,
            window_start: now,
            bytes_at_start: 0,
            bytes: 0,
        }
    }

    /// Bytes arrived.
    pub(crate) fn add(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_add(bytes as u64);
    }

    /// When the current window ends (`None`: no least rate).
    pub(crate) fn window_end(&self) -> Option<Instant> {
        self.min.map(|min| self.window_start + min.window)
    }

    /// Checks the rate at `now`: a window that has ended with fewer bytes than the least rate
    /// asks for is a cut-off; one that reached it starts the next window.
    pub(crate) fn check(&mut self, now: Instant) -> Result<(), Cutoff> {
        let Some(min) = self.min else {
            return Ok(());
        };
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed < min.window {
            return Ok(());
        }
        let got = self.bytes - self.bytes_at_start;
        let wanted = min.bytes_per_sec.get() as f64 * elapsed.as_secs_f64();
        if (got as f64) < wanted {
            return Err(Cutoff::Dripped(min));
        }
        self.window_start = now;
        self.bytes_at_start = self.bytes;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kib_per_sec_over(window_secs: u64) -> Option<MinRate> {
        Some(MinRate {
            bytes_per_sec: NonZeroU64::new(1024).expect("positive"),
            window: Duration::from_secs(window_secs),
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_drip_is_cut_when_its_window_ends() {
        let min = kib_per_sec_over(10);
        let mut meter = RateMeter::new(min, Instant::now());
        for _ in 0..9 {
            tokio::time::advance(Duration::from_secs(1)).await;
            meter.add(1);
            assert_eq!(
                meter.check(Instant::now()),
                Ok(()),
                "the window is not over"
            );
        }
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(
            meter.check(Instant::now()),
            Err(Cutoff::Dripped(min.expect("set")))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn each_window_must_reach_the_rate_on_its_own() {
        let mut meter = RateMeter::new(kib_per_sec_over(10), Instant::now());
        // A fast first window does not pay for a silent second one.
        meter.add(1024 * 1024);
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(meter.check(Instant::now()), Ok(()));
        assert_eq!(
            meter.window_end(),
            Some(Instant::now() + Duration::from_secs(10))
        );
        meter.add(10 * 1024 - 1);
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(meter.check(Instant::now()).is_err(), "one byte short");
    }

    #[tokio::test(start_paused = true)]
    async fn no_least_rate_never_cuts() {
        let mut meter = RateMeter::new(None, Instant::now());
        tokio::time::advance(Duration::from_secs(3600)).await;
        assert_eq!(meter.check(Instant::now()), Ok(()));
        assert_eq!(meter.window_end(), None);
    }

    #[test]
    fn cutoffs_say_what_they_waited_for() {
        let cases = [
            (
                Cutoff::Headers(Duration::from_secs(30)),
                "timed out after 30 s waiting for headers",
            ),
            (
                Cutoff::Connect(Duration::from_millis(250)),
                "timed out after 250 ms connecting",
            ),
            (
                Cutoff::Request(Duration::from_millis(1500)),
                "timed out after 1.5 s: the answer was not whole",
            ),
            (
                Cutoff::Dripped(kib_per_sec_over(10).expect("set")),
                "dripped under 1 KiB/s over 10 s",
            ),
        ];
        for (cutoff, said) in cases {
            assert_eq!(cutoff.to_string(), said);
        }
    }

    #[test]
    fn headers_are_due_at_the_nearer_deadline() {
        let now = Instant::now();
        let mut deadlines = Deadlines {
            connect: Duration::from_secs(1),
            headers: Duration::from_secs(30),
            request: Duration::from_secs(120),
            min_rate: None,
        };
        assert_eq!(
            deadlines.headers_due(now),
            (
                now + Duration::from_secs(30),
                Cutoff::Headers(Duration::from_secs(30))
            )
        );
        deadlines.request = Duration::from_secs(5);
        assert_eq!(
            deadlines.headers_due(now),
            (
                now + Duration::from_secs(5),
                Cutoff::Request(Duration::from_secs(5))
            )
        );
    }
}
