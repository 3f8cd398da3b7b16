//! robots.txt in the crawl loop: the frontier's [`RobotsState`] for a cached answer, and for
//! a failed fetch. Only glue stays here: the policy (what an answer means, the cache's
//! lifetime, the fallback after 30 days, the back-off and parking) is in `crate::robots_fetch`,
//! parsing and matching in the `robots` crate. This glue reads the store's cached answer and
//! the frontier's state and builds a `frontier::RobotsState`, so it is the crawl's.

use std::sync::Arc;
use std::time::Duration;

use shared::now_ms;
use shared::record::RobotsRecord;
use tokio::time::Instant;
use tracing::{info, warn};

use super::Crawler;
use crate::error::Error;
use crate::frontier::{Frontier, RobotsState};
use crate::robots_fetch::{self, Unavailable};
use robots::RobotsPolicy;

impl Crawler {
    pub(super) fn cached_robots(&self, origin: &str) -> Result<RobotsState, Error> {
        Ok(match self.store.robots(origin)? {
            Some(record) if record.expires_at_ms > now_ms() => self.known_robots(&record),
            _ => RobotsState::Unknown,
        })
    }

    /// The state a robots.txt record stands for, expiring when the record does.
    pub(super) fn known_robots(&self, record: &RobotsRecord) -> RobotsState {
        let left = Duration::from_millis(record.expires_at_ms.saturating_sub(now_ms()));
        RobotsState::Known {
            policy: Arc::new(RobotsPolicy::from_fetch(
                &record.fetch,
                &self.options.config.agent,
            )),
            expires: Instant::now() + left,
        }
    }

    /// The state of an origin whose robots.txt could not be read (429, 5xx, network): it
    /// waits and tries again with back-off (the server's `Retry-After` at least), and is
    /// parked after `robots_attempts`; once failures have lasted 30 days, the last cached copy
    /// is obeyed again.
    pub(super) fn robots_unavailable(
        &mut self,
        origin: &str,
        why: &str,
        retry_after: Option<Duration>,
        frontier: &Frontier,
        now: Instant,
    ) -> Result<RobotsState, Error> {
        let cached = self.store.robots(origin)?;
        match robots_fetch::after_failure(cached, now_ms()) {
            Some((record, true)) => {
                warn!(%origin, %why, "robots.txt unreachable for 30 days: obeying the last copy");
                let record = RobotsRecord {
                    expires_at_ms: now_ms() + robots_fetch::MIN_CACHE_MS,
                    ..record
                };
                self.store.put_robots(origin, &record)?;
                return Ok(self.known_robots(&record));
            }
            Some((record, false)) => self.store.put_robots(origin, &record)?,
            None => {}
        }
        let attempts = match frontier.robots_state(origin) {
            Some(RobotsState::Waiting { attempts, .. }) => attempts + 1,
            _ => 1,
        };
        match robots_fetch::when_unavailable(&self.options.config, attempts, retry_after) {
            Unavailable::Parked => {
                warn!(%origin, %why, attempts, "robots.txt unreachable: host parked until the next run");
                Ok(RobotsState::Parked)
            }
            Unavailable::Wait(wait) => {
                info!(%origin, %why, ?wait, "robots.txt unavailable: host waits");
                Ok(RobotsState::Waiting {
                    attempts,
                    until: now + wait,
                })
            }
        }
    }
}
