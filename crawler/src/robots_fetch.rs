//! Fetching robots.txt and reading the answer by its status, as DESIGN.md says: 2xx rules,
//! 3xx followed (up to five hops), 401/403 the whole site forbidden, other 4xx no rules,
//! 429/5xx/network errors "unavailable" (the host waits). The answer is cached with the expiry
//! `Cache-Control: max-age` gives, bounded to between one hour and one day.

use shared::record::{RobotsFetch, RobotsRecord};
use shared::{CanonicalUrl, now_ms};

use crate::fetch::{BodyKind, FetchError, Fetched, Fetcher};

/// How a robots.txt fetch ended.
pub enum RobotsResult {
    /// An answer to cache and obey.
    Answer(RobotsRecord),
    /// No usable answer (429, 5xx, network error): try again later.
    Unavailable(String),
    /// The host's address is refused by the address policy: no retry in this run.
    Refused(String),
}

/// Most redirects followed for robots.txt (RFC 9309 asks for at least five).
const ROBOTS_REDIRECTS: usize = 5;
const HOUR_MS: u64 = 3_600_000;

/// Fetches `origin/robots.txt` and reads the answer as DESIGN.md says: 2xx rules, 3xx followed,
/// 401/403 forbidden, other 4xx no rules, 429/5xx/network unavailable.
pub async fn fetch_robots(fetcher: &Fetcher, origin: &str) -> RobotsResult {
    let Ok(mut url) = CanonicalUrl::parse(&format!("{origin}/robots.txt")) else {
        return RobotsResult::Unavailable(format!("bad origin {origin}"));
    };
    for _ in 0..=ROBOTS_REDIRECTS {
        let fetched = match fetcher.fetch(&url, None, BodyKind::Robots).await {
            Ok(fetched) => fetched,
            Err(e @ FetchError::AddressRefused(_)) => return RobotsResult::Refused(e.to_string()),
            Err(e) => return RobotsResult::Unavailable(e.to_string()),
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
            429 => return RobotsResult::Unavailable("429 Too Many Requests".into()),
            400..=499 => RobotsFetch::NoRules,
            status => return RobotsResult::Unavailable(format!("status {status}")),
        };
        let now = now_ms();
        let ttl = max_age_ms(&fetched)
            .unwrap_or(24 * HOUR_MS)
            .clamp(HOUR_MS, 24 * HOUR_MS);
        return RobotsResult::Answer(RobotsRecord {
            fetch,
            fetched_at_ms: now,
            expires_at_ms: now + ttl,
        });
    }
    // Too many redirects: as if there were no robots.txt (RFC 9309 2.3.1.2).
    let now = now_ms();
    RobotsResult::Answer(RobotsRecord {
        fetch: RobotsFetch::NoRules,
        fetched_at_ms: now,
        expires_at_ms: now + 24 * HOUR_MS,
    })
}

fn max_age_ms(fetched: &Fetched) -> Option<u64> {
    let cache_control = fetched.header("cache-control")?;
    cache_control
        .split(',')
        .find_map(|directive| {
            let (name, value) = directive.split_once('=')?;
            (name.trim().eq_ignore_ascii_case("max-age"))
                .then(|| value.trim().parse::<u64>().ok())?
        })
        .map(|secs| secs.saturating_mul(1000))
}
