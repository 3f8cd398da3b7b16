//! When a failed fetch is tried again: the back-off policy for answers that say "not now"
//! (429, 5xx, timeouts, broken connections) and the `Retry-After` header.
//!
//! Two things wait after a failure, on different clocks. The URL goes behind its host's other
//! URLs with its attempt count, up to `page_attempts`. The host waits before its next request
//! (politeness toward a struggling server): `Retry-After` when the server gave one, else
//! `retry_ms` doubled per failure of the *host* in a row. One bad URL among good ones costs
//! its host a short pause each time it fails; only a host whose every request fails backs off
//! further and further (and its circuit breaker pauses or halts it).

use std::time::{Duration, SystemTime};

use shared::config::CrawlerConfig;

use crate::fetch::{FetchError, Fetched};

/// What to do after a fetch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The answer is final: store it.
    Keep,
    /// Not now: queue the URL again behind its host's others and make the host wait this long.
    RetryAfter(Duration),
    /// It failed again and the attempts are spent: store the failure.
    GiveUp,
}

/// The retry settings of a crawl.
#[derive(Clone, Debug)]
pub(crate) struct RetryPolicy {
    attempts: u8,
    first_wait: Duration,
    max_wait: Duration,
}

impl RetryPolicy {
    /// From the crawler config.
    pub(crate) fn new(config: &CrawlerConfig) -> Self {
        Self {
            attempts: config.page_attempts.get(),
            first_wait: config.retry,
            max_wait: config.max_retry_after,
        }
    }

    /// The verdict on a fetch of a URL that already failed `failed_before` times, from a
    /// host that has now failed `host_failures` times in a row (this failure included).
    /// `Ok` for an answer, `Err` for no answer.
    pub(crate) fn verdict(
        &self,
        result: Result<&Fetched, &FetchError>,
        failed_before: u8,
        host_failures: u32,
    ) -> Verdict {
        let asked_wait = match result {
            Ok(fetched) if is_retryable_status(fetched.status) => {
                retry_after(fetched, SystemTime::now())
            }
            Ok(_) => return Verdict::Keep,
            // A refused address will not change by waiting; no retry in this run.
            Err(FetchError::AddressRefused(_)) => return Verdict::GiveUp,
            Err(_) => None,
        };
        if failed_before.saturating_add(1) >= self.attempts {
            return Verdict::GiveUp;
        }
        Verdict::RetryAfter(self.host_wait(host_failures, asked_wait))
    }

    /// The host's wait after its `host_failures`-th failure in a row: the server's
    /// `Retry-After` when it gave one, else the first wait doubled per earlier failure in the
    /// row; never more than the cap.
    pub(crate) fn host_wait(&self, host_failures: u32, asked: Option<Duration>) -> Duration {
        let doublings = host_failures.saturating_sub(1).min(16);
        let backoff = self.first_wait.saturating_mul(1u32 << doublings);
        asked.unwrap_or(backoff).min(self.max_wait)
    }
}

/// Whether a fetch failed, as retries and circuit breakers count failures: no answer, or 429
/// or 5xx.
pub(crate) fn is_failure(result: Result<&Fetched, &FetchError>) -> bool {
    match result {
        Ok(fetched) => is_retryable_status(fetched.status),
        Err(_) => true,
    }
}

/// 429 and 5xx say "not now"; everything else is an answer.
pub(crate) fn is_retryable_status(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}

/// The wait a `Retry-After` header asks for: delay-seconds or an HTTP date (a date in the
/// past asks for none). Unreadable values are ignored.
pub(crate) fn retry_after(fetched: &Fetched, now: SystemTime) -> Option<Duration> {
    let value = fetched.header("retry-after")?.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::Cutoff;
    use shared::config::RawCrawlerConfig;

    fn answer(status: u16, retry_after: Option<&str>) -> Fetched {
        Fetched {
            status,
            headers: retry_after
                .map(|v| vec![("retry-after".to_string(), v.to_string())])
                .unwrap_or_default(),
            text: None,
            raw: Vec::new(),
            kind: None,
            content_type: String::new(),
            body_len: 0,
            truncated: false,
        }
    }

    fn policy() -> RetryPolicy {
        RetryPolicy::new(
            &RawCrawlerConfig {
                page_attempts: 3,
                retry_ms: 1_000,
                max_retry_after_ms: 60_000,
                ..RawCrawlerConfig::default()
            }
            .validate()
            .unwrap(),
        )
    }

    #[test]
    fn statuses_and_errors() {
        let p = policy();
        for status in [200, 204, 301, 304, 404, 410, 403] {
            assert_eq!(p.verdict(Ok(&answer(status, None)), 2, 0), Verdict::Keep);
        }
        assert_eq!(
            p.verdict(Ok(&answer(500, None)), 0, 1),
            Verdict::RetryAfter(Duration::from_secs(1))
        );
        assert_eq!(p.verdict(Ok(&answer(500, None)), 2, 1), Verdict::GiveUp);
        let timeout = FetchError::Cut(Cutoff::Headers(Duration::from_secs(30)));
        assert_eq!(
            p.verdict(Err(&timeout), 0, 1),
            Verdict::RetryAfter(Duration::from_secs(1))
        );
        assert_eq!(
            p.verdict(Err(&FetchError::AddressRefused("10.0.0.1".into())), 0, 1),
            Verdict::GiveUp
        );
    }

    #[test]
    fn the_wait_grows_with_the_hosts_failures_in_a_row_not_the_urls() {
        let p = policy();
        // The URL's second attempt, after the host answered other URLs in between: short.
        assert_eq!(
            p.verdict(Ok(&answer(502, None)), 1, 1),
            Verdict::RetryAfter(Duration::from_secs(1))
        );
        // A host failing again and again, whatever URL: doubled each time, then capped.
        assert_eq!(
            p.verdict(Ok(&answer(502, None)), 0, 2),
            Verdict::RetryAfter(Duration::from_secs(2))
        );
        assert_eq!(
            p.verdict(Ok(&answer(502, None)), 0, 5),
            Verdict::RetryAfter(Duration::from_secs(16))
        );
        assert_eq!(
            p.verdict(Ok(&answer(502, None)), 0, 49),
            Verdict::RetryAfter(Duration::from_secs(60))
        );
    }

    #[test]
    fn retry_after_wins_and_is_capped() {
        let p = policy();
        assert_eq!(
            p.verdict(Ok(&answer(503, Some("7"))), 0, 1),
            Verdict::RetryAfter(Duration::from_secs(7))
        );
        assert_eq!(
            p.verdict(Ok(&answer(429, Some("86400"))), 0, 1),
            Verdict::RetryAfter(Duration::from_secs(60)),
            "capped at max_retry_after_ms"
        );
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        let later = answer(503, Some("Sun, 06 Nov 1994 08:50:07 GMT"));
        assert_eq!(retry_after(&later, now), Some(Duration::from_secs(30)));
        let past = answer(503, Some("Sun, 06 Nov 1994 08:00:00 GMT"));
        assert_eq!(retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(retry_after(&answer(503, Some("soon")), now), None);
    }
}
