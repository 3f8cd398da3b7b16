//! The in-memory side of the frontier: one queue per origin and a heap of "origin ready at
//! time T" that hands an origin out only when its politeness delay has passed and it has a
//! free fetch slot.
//!
//! The queues themselves live in RocksDB (`frontier` column family, see [`PageStore`]); each
//! origin keeps at most [`BUFFER_PER_HOST`] of its next entries in memory, so a crawl of
//! millions of URLs runs in bounded memory. The buffer always holds the smallest keys of the
//! origin that are neither in flight nor fetched, so breadth-first order is kept per origin.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use shared::record::FrontierEntry;
use shared::{CanonicalUrl, StoreError};
use tokio::time::Instant;

use crate::breaker::{Breaker, Trip};
use crate::politeness::Politeness;
use crate::robots::RobotsPolicy;
use crate::store::{PageStore, QueuedUrl};

/// An answer this slow makes the host's gap grow.
pub const SLOW_ANSWER: Duration = Duration::from_secs(1);
/// After a slow answer the gap is at least this many times the answer's time.
pub const SLOW_FACTOR: u32 = 2;

/// Entries of one origin held in memory at most.
pub const BUFFER_PER_HOST: usize = 256;

/// Where an origin stands with its robots.txt.
#[derive(Clone, Debug)]
pub enum RobotsState {
    /// Not fetched yet: the next job for this origin fetches it.
    Unknown,
    /// A fetch is under way.
    Fetching,
    /// Known: obey it until `expires`, then fetch it again.
    Known {
        /// What it says.
        policy: Arc<RobotsPolicy>,
        /// When the cached answer expires (within one hour and one day of its fetch).
        expires: Instant,
    },
    /// The last fetch failed (429, 5xx, network): retry at `until`.
    Waiting {
        /// Failed attempts so far in this run.
        attempts: u32,
        /// When to try again.
        until: Instant,
    },
    /// Unreachable too often: no more work for this origin in this run.
    Parked,
}

/// One unit of work for a fetch task.
#[derive(Debug)]
pub enum Job {
    /// Fetch the origin's robots.txt.
    Robots {
        /// `scheme://host[:port]`.
        origin: String,
        /// The host's gap, kept between the hops of a redirected robots.txt too.
        gap: Duration,
    },
    /// Fetch a page.
    Page {
        /// `scheme://host[:port]`.
        origin: String,
        /// Its frontier key.
        key: Vec<u8>,
        /// Its entry.
        entry: FrontierEntry,
        /// The parsed URL.
        url: CanonicalUrl,
    },
}

struct HostQueue {
    buffered: BTreeMap<Vec<u8>, FrontierEntry>,
    more_in_store: bool,
    in_flight: HashSet<Vec<u8>>,
    robots_in_flight: bool,
    next_at: Instant,
    scheduled: bool,
    robots: RobotsState,
    /// The gap in force: `base_delay`, or longer after a slow answer.
    delay: Duration,
    /// The gap politeness asks for (operator delay, robots `Crawl-delay`).
    base_delay: Duration,
    concurrency: usize,
    breaker: Breaker,
    /// Halted by its circuit breaker: no more requests in this run.
    halted: bool,
}

impl HostQueue {
    fn busy(&self) -> usize {
        self.in_flight.len() + usize::from(self.robots_in_flight)
    }
}

/// The per-origin queues and the ready heap.
pub struct Frontier {
    hosts: HashMap<String, HostQueue>,
    ready: BinaryHeap<Reverse<(Instant, String)>>,
    politeness: Politeness,
}

impl Frontier {
    /// An empty frontier.
    pub fn new(politeness: Politeness) -> Self {
        Self {
            hosts: HashMap::new(),
            ready: BinaryHeap::new(),
            politeness,
        }
    }

    /// Origins known.
    pub fn host_count(&self) -> usize {
        self.hosts.len()
    }

    /// Registers an origin whose entries are in the store (on start), with its robots state.
    pub fn load_origin(&mut self, origin: &str, robots: RobotsState, now: Instant) {
        let host = self.host_mut(origin, now);
        host.robots = robots;
        host.more_in_store = true;
        self.schedule(origin, now);
    }

    /// Adds newly queued URLs.
    pub fn push(&mut self, queued: Vec<QueuedUrl>, now: Instant) {
        for QueuedUrl { key, entry } in queued {
            let Some(origin) = shared::store::frontier_key_origin(&key).map(str::to_string) else {
                continue;
            };
            let host = self.host_mut(&origin, now);
            if host.in_flight.contains(&key) {
                continue;
            }
            host.buffered.insert(key, entry);
            if host.buffered.len() > BUFFER_PER_HOST {
                host.buffered.pop_last();
                host.more_in_store = true;
            }
            self.schedule(&origin, now);
        }
    }

    fn host_mut(&mut self, origin: &str, now: Instant) -> &mut HostQueue {
        let politeness = &self.politeness;
        self.hosts
            .entry(origin.to_string())
            .or_insert_with(|| HostQueue {
                buffered: BTreeMap::new(),
                more_in_store: false,
                in_flight: HashSet::new(),
                robots_in_flight: false,
                next_at: now,
                scheduled: false,
                robots: RobotsState::Unknown,
                delay: politeness.delay_for(origin, None),
                base_delay: politeness.delay_for(origin, None),
                concurrency: politeness.concurrency_for(origin),
                breaker: Breaker::new(politeness.breaker_pause()),
                halted: false,
            })
    }

    fn schedule(&mut self, origin: &str, now: Instant) {
        if let Some(host) = self.hosts.get_mut(origin)
            && !host.scheduled
            && !host.halted
            && !matches!(host.robots, RobotsState::Parked)
        {
            host.scheduled = true;
            let at = match host.robots {
                RobotsState::Waiting { until, .. } => until.max(host.next_at),
                _ => host.next_at,
            };
            self.ready.push(Reverse((at.max(now), origin.to_string())));
        }
    }

    /// When the next origin becomes ready, if any is waiting.
    pub fn next_wake(&self) -> Option<Instant> {
        self.ready.peek().map(|Reverse((at, _))| *at)
    }

    /// Nothing is scheduled: every origin is drained, parked or busy.
    pub fn is_idle(&self) -> bool {
        self.ready.is_empty()
    }

    /// Hands out the next job whose time has come, or `None`. Queued URLs that robots.txt
    /// disallows are dropped from the store on the way (`on_disallowed` is told).
    pub fn next_job(
        &mut self,
        now: Instant,
        store: &mut PageStore,
        on_disallowed: &mut dyn FnMut(&FrontierEntry),
    ) -> Result<Option<Job>, StoreError> {
        while let Some(Reverse((at, origin))) = self.ready.peek().cloned() {
            if at > now {
                return Ok(None);
            }
            self.ready.pop();
            let Some(host) = self.hosts.get_mut(&origin) else {
                continue;
            };
            host.scheduled = false;
            if host.halted {
                continue; // halted after it was scheduled
            }
            if host.busy() >= host.concurrency {
                continue; // rescheduled when a slot frees
            }
            if host.next_at > now {
                // Its wait grew after it was scheduled (a retry's back-off).
                self.schedule(&origin, now);
                continue;
            }
            if matches!(host.robots, RobotsState::Known { expires, .. } if expires <= now) {
                // A crawl that outlives the cached robots.txt reads it again before going on.
                host.robots = RobotsState::Unknown;
            }
            match &host.robots {
                RobotsState::Unknown | RobotsState::Waiting { .. } => {
                    if let RobotsState::Waiting { until, .. } = host.robots
                        && until > now
                    {
                        self.schedule(&origin, now);
                        continue;
                    }
                    if host.buffered.is_empty() && !host.more_in_store {
                        continue;
                    }
                    host.robots_in_flight = true;
                    host.robots = match host.robots {
                        RobotsState::Waiting { attempts, until } => {
                            RobotsState::Waiting { attempts, until }
                        }
                        _ => RobotsState::Fetching,
                    };
                    host.next_at = now + host.delay;
                    return Ok(Some(Job::Robots {
                        origin,
                        gap: host.delay,
                    }));
                }
                RobotsState::Fetching | RobotsState::Parked => continue,
                RobotsState::Known { policy, .. } => {
                    let policy = Arc::clone(policy);
                    while let Some((key, entry)) = take_next(host, store, &origin)? {
                        let url = match CanonicalUrl::parse(&entry.url) {
                            Ok(url) if policy.allows(url.path_and_query()) => url,
                            _ => {
                                on_disallowed(&entry);
                                store.drop_queued(&key, &entry, shared::now_ms())?;
                                continue;
                            }
                        };
                        host.in_flight.insert(key.clone());
                        host.next_at = now + host.delay;
                        if host.busy() < host.concurrency {
                            self.schedule(&origin, now);
                        }
                        return Ok(Some(Job::Page {
                            origin,
                            key,
                            entry,
                            url,
                        }));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A robots.txt fetch ended: the origin's new robots state.
    pub fn robots_done(&mut self, origin: &str, state: RobotsState, now: Instant) {
        let crawl_delay = match &state {
            RobotsState::Known { policy, .. } => policy.crawl_delay(),
            _ => None,
        };
        let delay = self.politeness.delay_for(origin, crawl_delay);
        if let Some(host) = self.hosts.get_mut(origin) {
            host.robots_in_flight = false;
            host.robots = state;
            host.delay = delay;
            host.base_delay = delay;
            host.next_at = host.next_at.max(now + delay);
            self.schedule(origin, now);
        }
    }

    /// The robots state of an origin.
    pub fn robots_state(&self, origin: &str) -> Option<&RobotsState> {
        self.hosts.get(origin).map(|h| &h.robots)
    }

    /// A page fetch answered "not now" (429, 5xx, network error): the URL stays queued with
    /// its updated `entry` and the whole host waits `wait` (a server that is struggling gets
    /// no other request meanwhile).
    pub fn page_retry(
        &mut self,
        origin: &str,
        key: Vec<u8>,
        entry: FrontierEntry,
        wait: Duration,
        now: Instant,
    ) {
        if let Some(host) = self.hosts.get_mut(origin) {
            host.in_flight.remove(&key);
            host.buffered.insert(key, entry);
            if host.buffered.len() > BUFFER_PER_HOST {
                host.buffered.pop_last();
                host.more_in_store = true;
            }
            host.next_at = host.next_at.max(now + wait).max(now + host.delay);
            self.schedule(origin, now);
        }
    }

    /// A page answer took `elapsed`: a host that answers slowly is struggling, so the gap to
    /// its next request grows to [`SLOW_FACTOR`] times that (capped like `Crawl-delay`); once
    /// it answers quickly again the gap is the configured one.
    pub fn answered_in(&mut self, origin: &str, elapsed: Duration, now: Instant) {
        let max = self.politeness.max_delay();
        if let Some(host) = self.hosts.get_mut(origin) {
            if elapsed >= SLOW_ANSWER {
                host.delay = host
                    .base_delay
                    .max(elapsed.saturating_mul(SLOW_FACTOR).min(max));
            } else if host.delay > host.base_delay {
                // Quick again: the long gap set when this request was handed out is lifted.
                host.delay = host.base_delay;
                host.next_at = host.next_at.min(now + host.delay);
            }
        }
    }

    /// Feeds a finished request to the origin's circuit breaker (`failed`: 429, 5xx, timeout,
    /// connection failure). A tripped breaker pauses the origin; a halted one gets no more
    /// requests in this run.
    pub fn record_outcome(&mut self, origin: &str, failed: bool, now: Instant) -> Trip {
        let Some(host) = self.hosts.get_mut(origin) else {
            return Trip::Closed;
        };
        let trip = host.breaker.record(now, failed);
        match trip {
            Trip::Closed => {}
            Trip::PauseUntil(until) => host.next_at = host.next_at.max(until),
            Trip::Halt => host.halted = true,
        }
        trip
    }

    /// Halts an origin (halted in an earlier run): it gets no requests in this one.
    pub fn halt(&mut self, origin: &str, now: Instant) {
        self.host_mut(origin, now).halted = true;
    }

    /// An origin's gap in force and its state (`active`, `waiting`, `paused`, `robots`,
    /// `parked`, `halted`), for the monitoring line.
    pub fn host_view(&self, origin: &str, now: Instant) -> Option<(Duration, &'static str)> {
        let host = self.hosts.get(origin)?;
        let state = if host.halted {
            "halted"
        } else {
            match host.robots {
                RobotsState::Parked => "parked",
                RobotsState::Unknown | RobotsState::Fetching | RobotsState::Waiting { .. } => {
                    "robots"
                }
                RobotsState::Known { .. } if host.next_at > now + host.delay => "paused",
                RobotsState::Known { .. } if host.buffered.is_empty() && !host.more_in_store => {
                    "idle"
                }
                RobotsState::Known { .. } => "active",
            }
        };
        Some((host.delay, state))
    }

    /// Origins halted by their circuit breaker in this run.
    pub fn halted_hosts(&self) -> Vec<String> {
        let mut halted: Vec<String> = self
            .hosts
            .iter()
            .filter(|(_, host)| host.halted)
            .map(|(origin, _)| origin.clone())
            .collect();
        halted.sort();
        halted
    }

    /// A page fetch ended (stored or given up): frees its slot.
    pub fn page_done(&mut self, origin: &str, key: &[u8], now: Instant) {
        if let Some(host) = self.hosts.get_mut(origin) {
            host.in_flight.remove(key);
            host.next_at = host.next_at.max(now + host.delay);
            self.schedule(origin, now);
        }
    }
}

/// The next entry of an origin: from the buffer, refilled from the store when empty.
fn take_next(
    host: &mut HostQueue,
    store: &PageStore,
    origin: &str,
) -> Result<Option<(Vec<u8>, FrontierEntry)>, StoreError> {
    if host.buffered.is_empty() && host.more_in_store {
        let in_flight = &host.in_flight;
        let refill =
            store.queued_for(origin, BUFFER_PER_HOST + 1, &|key| in_flight.contains(key))?;
        host.more_in_store = refill.len() > BUFFER_PER_HOST;
        host.buffered = refill
            .into_iter()
            .take(BUFFER_PER_HOST)
            .map(|q| (q.key, q.entry))
            .collect();
    }
    Ok(host.buffered.pop_first())
}

#[cfg(test)]
mod tests {
    use shared::config::CrawlerConfig;
    use shared::record::RobotsFetch;

    use super::*;

    fn frontier() -> Frontier {
        Frontier::new(Politeness::new(&CrawlerConfig {
            delay_ms: 0,
            ..CrawlerConfig::default()
        }))
    }

    fn queue(store: &mut PageStore, urls: &[&str]) -> Vec<QueuedUrl> {
        let entries = urls
            .iter()
            .map(|u| (CanonicalUrl::parse(u).unwrap(), FrontierEntry::page(*u, 0)))
            .collect();
        store.enqueue(entries).unwrap()
    }

    fn known(fetch: RobotsFetch, expires: Instant) -> RobotsState {
        RobotsState::Known {
            policy: Arc::new(RobotsPolicy::from_fetch(&fetch, "siftbot")),
            expires,
        }
    }

    fn next(frontier: &mut Frontier, store: &mut PageStore) -> Option<Job> {
        frontier
            .next_job(Instant::now(), store, &mut |_| {})
            .unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn an_expired_robots_txt_is_read_again_before_the_next_page() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let mut frontier = frontier();
        let origin = "http://a.test";
        let hour = Duration::from_secs(3600);
        frontier.load_origin(
            origin,
            known(RobotsFetch::NoRules, Instant::now() + hour),
            Instant::now(),
        );
        let queued = queue(&mut store, &["http://a.test/1", "http://a.test/2"]);
        frontier.push(queued, Instant::now());

        let Some(Job::Page { key, entry, .. }) = next(&mut frontier, &mut store) else {
            panic!("a page while robots.txt is fresh");
        };
        store.drop_queued(&key, &entry, 0).unwrap(); // as if stored
        frontier.page_done(origin, &key, Instant::now());
        tokio::time::advance(hour).await;
        assert!(
            matches!(next(&mut frontier, &mut store), Some(Job::Robots { .. })),
            "expired: robots.txt first"
        );
        assert!(
            next(&mut frontier, &mut store).is_none(),
            "nothing else meanwhile"
        );
        frontier.robots_done(
            origin,
            known(
                RobotsFetch::Rules("User-agent: *\nDisallow: /2\n".into()),
                Instant::now() + hour,
            ),
            Instant::now(),
        );
        let mut dropped = Vec::new();
        let job = frontier
            .next_job(Instant::now(), &mut store, &mut |e| {
                dropped.push(e.url.clone())
            })
            .unwrap();
        assert!(job.is_none(), "the new rules forbid /2");
        assert_eq!(dropped, vec!["http://a.test/2".to_string()]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_retried_url_waits_and_holds_back_its_host() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let mut frontier = frontier();
        let origin = "http://b.test";
        let far = Instant::now() + Duration::from_secs(86_400);
        frontier.load_origin(origin, known(RobotsFetch::NoRules, far), Instant::now());
        let queued = queue(&mut store, &["http://b.test/x", "http://b.test/y"]);
        frontier.push(queued, Instant::now());

        let Some(Job::Page { key, mut entry, .. }) = next(&mut frontier, &mut store) else {
            panic!("a page");
        };
        assert_eq!(entry.url, "http://b.test/x");
        entry.attempts = 1;
        let wait = Duration::from_secs(30);
        frontier.page_retry(origin, key, entry, wait, Instant::now());
        assert_eq!(frontier.next_wake(), Some(Instant::now() + wait));

        tokio::time::advance(Duration::from_secs(29)).await;
        assert!(next(&mut frontier, &mut store).is_none(), "the host waits");
        tokio::time::advance(Duration::from_secs(1)).await;
        let Some(Job::Page { entry, .. }) = next(&mut frontier, &mut store) else {
            panic!("the retry");
        };
        assert_eq!(
            (entry.url.as_str(), entry.attempts),
            ("http://b.test/x", 1),
            "the same URL first, with its attempt count"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_answer_lengthens_the_gap_until_answers_are_quick_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = PageStore::open(dir.path()).unwrap();
        let mut frontier = frontier();
        let origin = "http://slow.test";
        let far = Instant::now() + Duration::from_secs(86_400);
        frontier.load_origin(origin, known(RobotsFetch::NoRules, far), Instant::now());
        let urls = [
            "http://slow.test/1",
            "http://slow.test/2",
            "http://slow.test/3",
        ];
        let queued = queue(&mut store, &urls);
        frontier.push(queued, Instant::now());

        let take = |frontier: &mut Frontier, store: &mut PageStore| {
            let Some(Job::Page { key, entry, .. }) = next(frontier, store) else {
                panic!("a page");
            };
            store.drop_queued(&key, &entry, 0).unwrap();
            key
        };
        let key = take(&mut frontier, &mut store);
        frontier.answered_in(origin, Duration::from_secs(3), Instant::now());
        frontier.page_done(origin, &key, Instant::now());
        tokio::time::advance(Duration::from_millis(5_999)).await;
        assert!(
            next(&mut frontier, &mut store).is_none(),
            "6 s after a 3 s answer"
        );
        tokio::time::advance(Duration::from_millis(1)).await;
        let key = take(&mut frontier, &mut store);
        frontier.answered_in(origin, Duration::from_millis(20), Instant::now());
        frontier.page_done(origin, &key, Instant::now());
        assert!(
            next(&mut frontier, &mut store).is_some(),
            "quick again: the configured gap (0 here)"
        );
    }
}
