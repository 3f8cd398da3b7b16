//! Fetching robots.txt and reading the answer by its status, as DESIGN.md says: 2xx rules,
//! 3xx followed (up to five hops), 401/403 the whole site forbidden, other 4xx no rules,
//! 429/5xx/network errors "unavailable" (the host waits). The answer is cached with the expiry
//! `Cache-Control` (`max-age`, `s-maxage`) or `Expires` gives, bounded to between one hour and
//! one day; without either, for a day. A body is read as [`policy_of_body`] says, then parsed
//! and matched by the `robots` crate.
//!
//! The decision table (`robots_fetch/cases.rs`, run by `robots_fetch/reading_tests.rs`) holds the
//! parser to Google's tests and RFC 9309 through this reading: the bytes a server sends, the
//! crawler's charset decoding, the size limit, a URL canonicalized as the crawler does.

use std::time::{Duration, SystemTime};

use shared::config::CrawlerConfig;
use shared::record::{RobotsFetch, RobotsRecord};
use shared::{CanonicalUrl, now_ms};

use robots::{MAX_ROBOTS_BYTES, RobotsPolicy};

use crate::fetch::{BodyKind, FetchError, Fetched, Fetcher};
use crate::politeness::Spacing;
use crate::retry::retry_after;

/// The policy of a robots.txt body served with `200 OK` and `Content-Type: text/plain`,
/// read as the crawler reads one: its first [`MAX_ROBOTS_BYTES`] decoded by
/// [`crate::charset::decode`], then parsed for `agent`.
pub fn policy_of_body(body: &[u8], agent: &str) -> RobotsPolicy {
    let body = &body[..body.len().min(MAX_ROBOTS_BYTES)];
    let text = crate::charset::decode(body, "text/plain");
    RobotsPolicy::from_fetch(&RobotsFetch::Rules(text), agent)
}

/// How a robots.txt fetch ended.
pub(crate) enum RobotsResult {
    /// An answer to cache and obey.
    Answer(RobotsRecord),
    /// No usable answer (429, 5xx, network error): try again later, not before the
    /// `Retry-After` the server gave, if any.
    Unavailable {
        /// What went wrong.
        why: String,
        /// The server's `Retry-After`.
        retry_after: Option<Duration>,
    },
    /// The host's address is refused by the address policy: no retry in this run.
    Refused(String),
}

/// Most redirects followed for robots.txt (RFC 9309 asks for at least five).
const ROBOTS_REDIRECTS: usize = 5;
const HOUR_MS: u64 = 3_600_000;

/// The shortest time a robots.txt answer is cached: an hour.
pub(crate) const MIN_CACHE_MS: u64 = HOUR_MS;

/// Fetches `origin/robots.txt` and reads the answer as DESIGN.md says: 2xx rules, 3xx followed,
/// 401/403 forbidden, other 4xx no rules, 429/5xx/network unavailable. Every request keeps
/// `spacing`; redirect hops also wait the host's gap after each answer.
pub(crate) async fn fetch_robots(
    fetcher: &Fetcher,
    origin: &str,
    spacing: &Spacing,
) -> RobotsResult {
    let unavailable =
        |why: String, retry_after: Option<Duration>| RobotsResult::Unavailable { why, retry_after };
    let Ok(mut url) = CanonicalUrl::parse(&format!("{origin}/robots.txt")) else {
        return unavailable(format!("bad origin {origin}"), None);
    };
    for hop in 0..=ROBOTS_REDIRECTS {
        if hop > 0 {
            tokio::time::sleep(spacing.origin_gap).await;
        }
        fetcher.wait_turn(origin, spacing, &url).await;
        let fetched = match fetcher
            .fetch(
                &url,
                None,
                BodyKind::Robots {
                    limit: MAX_ROBOTS_BYTES,
                },
                None,
            )
            .await
        {
            Ok(fetched) => fetched,
            Err(e @ FetchError::AddressRefused(_)) => return RobotsResult::Refused(e.to_string()),
            Err(e) => return unavailable(e.to_string(), None),
        };
        let fetch = match fetched.status {
            200..=299 => RobotsFetch::Rules(fetched.text.clone().unwrap_or_default()),
            300..=399 => {
                match fetched
                    .header("location")
                    .and_then(|l| CanonicalUrl::join(url.as_url(), l).ok())
                {
                    Some(next) => {
                        url = next;
                        continue;
                    }
                    None => RobotsFetch::NoRules,
                }
            }
            401 | 403 => RobotsFetch::Forbidden,
            429 => {
                let wait = retry_after(&fetched, SystemTime::now());
                return unavailable("429 Too Many Requests".into(), wait);
            }
            400..=499 => RobotsFetch::NoRules,
            status => {
                let wait = retry_after(&fetched, SystemTime::now());
                return unavailable(format!("status {status}"), wait);
            }
        };
        let now = now_ms();
        let ttl = cache_ttl_ms(&fetched, SystemTime::now());
        return RobotsResult::Answer(RobotsRecord {
            fetch,
            fetched_at_ms: now,
            expires_at_ms: now + ttl,
            unreachable_since_ms: None,
        });
    }
    // Too many redirects: as if there were no robots.txt (RFC 9309 2.3.1.2).
    let now = now_ms();
    RobotsResult::Answer(RobotsRecord {
        fetch: RobotsFetch::NoRules,
        fetched_at_ms: now,
        expires_at_ms: now + 24 * HOUR_MS,
        unreachable_since_ms: None,
    })
}

/// How long robots.txt may stay unreachable before the last cached copy is obeyed again
/// (RFC 9309 2.4: "unreachable for more than 30 days").
pub(crate) const UNREACHABLE_FALLBACK_MS: u64 = 30 * 24 * HOUR_MS;

/// A failed robots.txt fetch at `now_ms`, against the origin's last cached answer: that
/// answer with the start of the failures recorded, and whether the failures have lasted long
/// enough ([`UNREACHABLE_FALLBACK_MS`]) to obey it again. Without a cached answer the host
/// stays off (`None`).
pub(crate) fn after_failure(
    cached: Option<RobotsRecord>,
    now_ms: u64,
) -> Option<(RobotsRecord, bool)> {
    let mut record = cached?;
    let since = *record.unreachable_since_ms.get_or_insert(now_ms);
    let fall_back = now_ms.saturating_sub(since) >= UNREACHABLE_FALLBACK_MS;
    Some((record, fall_back))
}

/// What an origin whose robots.txt could not be read (429, 5xx, network) does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// Parked until the next run: `robots_attempts` failures in a row.
    Parked,
    /// Waits this long, then asks again.
    Wait(Duration),
}

/// After the `attempts`-th failure in a row: parked at `robots_attempts`, else a wait of
/// `robots_retry` doubled per earlier failure, and at least the server's `Retry-After`
/// (bounded by `max_retry_after`).
pub(crate) fn when_unavailable(
    config: &CrawlerConfig,
    attempts: u32,
    retry_after: Option<Duration>,
) -> Unavailable {
    if attempts >= config.robots_attempts.get() {
        return Unavailable::Parked;
    }
    let backoff = config
        .robots_retry
        .saturating_mul(1 << (attempts - 1).min(16));
    let asked = retry_after.map(|wait| wait.min(config.max_retry_after));
    Unavailable::Wait(backoff.max(asked.unwrap_or_default()))
}

/// How long a robots.txt answer is cached: `Cache-Control` `s-maxage` or `max-age`, else
/// `Expires` minus `Date` (or now), else a day; always between one hour and one day.
/// `no-cache`/`no-store` mean "as short as allowed": an hour.
pub(crate) fn cache_ttl_ms(fetched: &Fetched, now: SystemTime) -> u64 {
    let directive = |name: &str| {
        fetched.header("cache-control").and_then(|cc| {
            cc.split(',').find_map(|directive| {
                let (key, value) = directive.split_once('=').unwrap_or((directive, ""));
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().trim_matches('"').to_string())
            })
        })
    };
    let seconds = |value: String| value.parse::<u64>().ok().map(|s| s.saturating_mul(1000));
    let ttl = if directive("no-store").is_some() || directive("no-cache").is_some() {
        Some(0)
    } else {
        directive("s-maxage")
            .and_then(seconds)
            .or_else(|| directive("max-age").and_then(seconds))
            .or_else(|| expires_ms(fetched, now))
    };
    ttl.unwrap_or(24 * HOUR_MS).clamp(HOUR_MS, 24 * HOUR_MS)
}

/// `Expires` minus the answer's `Date` (the server's clock), or minus `now` without one. An
/// unreadable `Expires` means "already expired" (RFC 9111 5.3).
fn expires_ms(fetched: &Fetched, now: SystemTime) -> Option<u64> {
    let expires = fetched.header("expires")?;
    let Ok(expires) = httpdate::parse_http_date(expires.trim()) else {
        return Some(0);
    };
    let date = fetched
        .header("date")
        .and_then(|d| httpdate::parse_http_date(d.trim()).ok())
        .unwrap_or(now);
    let ms = expires.duration_since(date).unwrap_or_default().as_millis();
    Some(u64::try_from(ms).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod cases;

#[cfg(test)]
mod reading_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(headers: &[(&str, &str)]) -> Fetched {
        Fetched {
            status: 200,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            text: Some(String::new()),
            raw: Vec::new(),
            kind: None,
            content_type: String::new(),
            body_len: 0,
            truncated: false,
        }
    }

    #[test]
    fn the_last_copy_is_obeyed_after_thirty_days_unreachable() {
        assert_eq!(after_failure(None, 0), None, "no copy: stay off");
        let copy = RobotsRecord {
            fetch: RobotsFetch::Rules("User-agent: *\nDisallow: /x\n".into()),
            fetched_at_ms: 0,
            expires_at_ms: HOUR_MS,
            unreachable_since_ms: None,
        };
        let day = 24 * HOUR_MS;
        let (first, obey) = after_failure(Some(copy), 2 * day).unwrap();
        assert_eq!((first.unreachable_since_ms, obey), (Some(2 * day), false));
        let (later, obey) = after_failure(Some(first.clone()), 31 * day).unwrap();
        assert_eq!((later.unreachable_since_ms, obey), (Some(2 * day), false));
        let (_, obey) = after_failure(Some(first), 32 * day).unwrap();
        assert!(obey, "30 days after the first failure");
    }

    #[test]
    fn cache_lifetime_is_bounded_to_an_hour_and_a_day() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:00:00 GMT").unwrap();
        let ttl = |headers: &[(&str, &str)]| cache_ttl_ms(&answer(headers), now) / 60_000;
        assert_eq!(ttl(&[]), 24 * 60, "no header: a day");
        assert_eq!(ttl(&[("cache-control", "public, max-age=7200")]), 120);
        assert_eq!(
            ttl(&[("cache-control", "max-age=60")]),
            60,
            "at least an hour"
        );
        assert_eq!(
            ttl(&[("cache-control", "max-age=604800")]),
            24 * 60,
            "at most a day"
        );
        assert_eq!(
            ttl(&[("cache-control", "max-age=7200, s-maxage=10800")]),
            180,
            "s-maxage wins for a shared cache"
        );
        assert_eq!(ttl(&[("cache-control", "no-cache")]), 60);
        assert_eq!(
            ttl(&[("expires", "Sun, 06 Nov 1994 11:00:00 GMT")]),
            180,
            "Expires against now"
        );
        assert_eq!(
            ttl(&[
                ("date", "Sun, 06 Nov 1994 10:00:00 GMT"),
                ("expires", "Sun, 06 Nov 1994 15:00:00 GMT")
            ]),
            300,
            "Expires against the server's Date"
        );
        assert_eq!(
            ttl(&[
                ("cache-control", "max-age=9000"),
                ("expires", "Sun, 06 Nov 1994 11:00:00 GMT")
            ]),
            150,
            "max-age wins over Expires"
        );
        assert_eq!(ttl(&[("expires", "0")]), 60, "unreadable: expired, an hour");
    }
}
