//! The in-memory side of the frontier: one queue per origin and a heap of "origin ready at
//! time T" that hands an origin out only when its politeness delay has passed and it has a
//! free fetch slot.
//!
//! The queues themselves live in RocksDB (`frontier` column family, see [`PageStore`]); each
//! origin keeps only its next few entries in memory (see [`Frontier::buffer_cap`]), so a
//! crawl of millions of URLs over many hosts runs in bounded memory. The buffer always holds the smallest keys of the
//! origin that are neither in flight nor fetched, so breadth-first order is kept per origin.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use shared::record::FrontierEntry;
use shared::{CanonicalUrl, StoreError};
use tokio::time::Instant;

use crate::breaker::{Breaker, Trip};
use crate::metrics::HOST_STATES;
use crate::politeness::{AddressSlots, AddressTurn, Politeness, Spacing};
use crate::store::{PageStore, QueuedUrl};
use robots::RobotsPolicy;

/// An answer this slow makes the host's gap grow.
pub(crate) const SLOW_ANSWER: Duration = Duration::from_secs(1);
/// After a slow answer the gap is at least this many times the answer's time.
pub(crate) const SLOW_FACTOR: u32 = 2;

/// Entries of one origin held in memory at most.
pub(crate) const BUFFER_PER_HOST: usize = 256;
/// Entries of one origin held in memory at least, however many origins there are.
pub(crate) const MIN_BUFFER_PER_HOST: usize = 4;
/// Entries held in memory across origins, as long as each keeps its minimum.
pub(crate) const MAX_BUFFERED: usize = 256 * 1024;

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

/// Where an origin stands with the IP address its name resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Address {
    /// Not looked up yet: the next job for this origin resolves it.
    Unknown,
    /// A lookup is under way.
    Resolving,
    /// Its first allowed address: the per-address limits apply.
    Known(IpAddr),
    /// The lookup failed: its requests fail the same way, with the robots.txt and retry
    /// rules of any failure; no per-address limit applies.
    Unresolved,
}

/// One unit of work for a fetch task.
#[derive(Debug)]
#[allow(clippy::large_enum_variant, reason = "one value per fetch, moved once")]
pub enum Job {
    /// Look up the origin's address (before its first request).
    Resolve {
        /// `scheme://host[:port]`.
        origin: String,
        /// Its host name.
        host: String,
    },
    /// Fetch the origin's robots.txt.
    Robots {
        /// `scheme://host[:port]`.
        origin: String,
        /// The gaps to keep when it is sent; the host's is kept between the hops of a
        /// redirected robots.txt too.
        spacing: Spacing,
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
        /// The gaps to keep when it is sent.
        spacing: Spacing,
        /// Its origin's robots.txt (a rendered page's requests obey it too).
        robots: Arc<RobotsPolicy>,
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
    address: Address,
}

impl HostQueue {
    fn busy(&self) -> usize {
        self.in_flight.len() + usize::from(self.robots_in_flight)
    }

    fn has_work(&self) -> bool {
        !self.buffered.is_empty() || self.more_in_store || self.busy() > 0
    }
}

/// How often the origins with work are counted for the fair share.
const RECOUNT_EVERY: Duration = Duration::from_secs(1);

/// The per-origin queues, the ready heap and the per-address gates.
pub struct Frontier {
    hosts: HashMap<String, HostQueue>,
    ready: BinaryHeap<Reverse<(Instant, String)>>,
    politeness: Politeness,
    addresses: AddressSlots,
    /// Origins with work at the last count, and when to count again.
    hosts_with_work: usize,
    recount_at: Option<Instant>,
    /// When this run began. A run killed just before it may have asked any origin and any
    /// address a moment ago, so none is asked before its gap has passed since then: a crawler
    /// restarted at once (by hand, or by a supervisor after a crash, again and again) stays as
    /// polite as one that ran on.
    started: Instant,
}

impl Frontier {
    /// An empty frontier.
    pub fn new(politeness: Politeness) -> Self {
        let started = Instant::now();
        Self {
            hosts: HashMap::new(),
            ready: BinaryHeap::new(),
            politeness,
            addresses: AddressSlots::new(started),
            hosts_with_work: 0,
            recount_at: None,
            started,
        }
    }

    /// The most fetch slots one origin may hold now (see [`Politeness::fair_share`]),
    /// counting the origins with work at most once every [`RECOUNT_EVERY`].
    fn fair_share(&mut self, now: Instant) -> usize {
        if self.recount_at.is_none_or(|at| at <= now) {
            self.hosts_with_work = self.hosts.values().filter(|h| h.has_work()).count();
            self.recount_at = Some(now + RECOUNT_EVERY);
        }
        self.politeness.fair_share(self.hosts_with_work)
    }

    /// Origins known.
    pub fn host_count(&self) -> usize {
        self.hosts.len()
    }

    /// Registers an origin whose entries are in the store (on start), with its robots state
    /// (cached by an earlier run: its `Crawl-delay` holds from the first request on).
    pub fn load_origin(&mut self, origin: &str, robots: RobotsState, now: Instant) {
        let crawl_delay = match &robots {
            RobotsState::Known { policy, .. } => policy.crawl_delay(),
            _ => None,
        };
        let delay = self.politeness.delay_for(origin, crawl_delay);
        let first = self.started + delay;
        let host = self.host_mut(origin, now);
        host.robots = robots;
        host.delay = delay;
        host.base_delay = delay;
        host.next_at = host.next_at.max(first);
        host.more_in_store = true;
        self.schedule(origin, now);
    }

    /// How many entries each origin keeps in memory: `BUFFER_PER_HOST` while few origins
    /// are known, fewer as they grow in number, so all of them together hold about
    /// `MAX_BUFFERED` (and never fewer than `MIN_BUFFER_PER_HOST` each).
    pub fn buffer_cap(&self) -> usize {
        (MAX_BUFFERED / self.hosts.len().max(1)).clamp(MIN_BUFFER_PER_HOST, BUFFER_PER_HOST)
    }

    /// Adds newly queued URLs.
    pub fn push(&mut self, queued: Vec<QueuedUrl>, now: Instant) {
        for QueuedUrl {
            key,
            entry,
            replaces,
        } in queued
        {
            let Some(origin) = shared::store::frontier_key_origin(&key).map(str::to_string) else {
                continue;
            };
            self.host_mut(&origin, now);
            let cap = self.buffer_cap();
            let Some(host) = self.hosts.get_mut(&origin) else {
                continue;
            };
            if let Some(old) = replaces {
                host.buffered.remove(&old); // moved up its queue
            }
            if host.in_flight.contains(&key) {
                continue;
            }
            if host.more_in_store
                && host
                    .buffered
                    .last_key_value()
                    .is_none_or(|(last, _)| key > *last)
            {
                // The buffer holds the front of the queue; entries behind it wait in the
                // store, where a refill finds this one in its place.
                continue;
            }
            host.buffered.insert(key, entry);
            if host.buffered.len() > cap {
                host.buffered.pop_last();
                host.more_in_store = true;
            }
            self.schedule(&origin, now);
        }
    }

    fn host_mut(&mut self, origin: &str, now: Instant) -> &mut HostQueue {
        let politeness = &self.politeness;
        let started = self.started;
        if !self.hosts.contains_key(origin) {
            self.recount_at = None; // a new origin: count again
        }
        self.hosts
            .entry(origin.to_string())
            .or_insert_with(|| HostQueue {
                buffered: BTreeMap::new(),
                more_in_store: false,
                in_flight: HashSet::new(),
                robots_in_flight: false,
                next_at: now.max(started + politeness.delay_for(origin, None)),
                scheduled: false,
                robots: RobotsState::Unknown,
                delay: politeness.delay_for(origin, None),
                base_delay: politeness.delay_for(origin, None),
                concurrency: politeness.concurrency_for(origin),
                breaker: Breaker::new(politeness.breaker_pause()),
                halted: false,
                address: Address::Unknown,
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
            let share = self.fair_share(now);
            let ip_limits = self.politeness.ip_limits();
            let buffer_cap = self.buffer_cap();
            let Some(host) = self.hosts.get_mut(&origin) else {
                continue;
            };
            host.scheduled = false;
            if host.halted {
                continue; // halted after it was scheduled
            }
            let limit = host.concurrency.min(share);
            if host.busy() >= limit {
                continue; // rescheduled when a slot frees
            }
            if host.next_at > now {
                // Its wait grew after it was scheduled (a retry's back-off).
                self.schedule(&origin, now);
                continue;
            }
            match host.address {
                Address::Unknown => {
                    if host.buffered.is_empty() && !host.more_in_store {
                        continue;
                    }
                    host.address = Address::Resolving;
                    let name = url::Url::parse(&origin)
                        .ok()
                        .and_then(|u| u.host_str().map(str::to_string))
                        .unwrap_or_default();
                    return Ok(Some(Job::Resolve { origin, host: name }));
                }
                Address::Resolving => continue, // rescheduled when resolved
                Address::Known(ip) => {
                    if let Some(limits) = ip_limits {
                        match self.addresses.turn(
                            ip,
                            limits,
                            &origin,
                            host.concurrency,
                            host.delay,
                            now,
                        ) {
                            AddressTurn::Go => {}
                            // Woken when a request to the address ends.
                            AddressTurn::Full => continue,
                            AddressTurn::NotBefore(at) => {
                                host.scheduled = true;
                                self.ready.push(Reverse((at, origin)));
                                continue;
                            }
                        }
                    }
                }
                Address::Unresolved => {}
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
                    let spacing = self.take_ip_slot(&origin, now);
                    return Ok(Some(Job::Robots { origin, spacing }));
                }
                RobotsState::Fetching | RobotsState::Parked => continue,
                RobotsState::Known { policy, .. } => {
                    let policy = Arc::clone(policy);
                    while let Some((key, entry)) = take_next(host, store, &origin, buffer_cap)? {
                        let refusal = match CanonicalUrl::parse(&entry.url) {
                            Ok(url) => match policy.refusal(url.path_and_query()) {
                                None => Ok(url),
                                Some(refusal) => Err(Some(refusal.skip_reason())),
                            },
                            Err(_) => Err(None),
                        };
                        let url = match refusal {
                            Ok(url) => url,
                            Err(reason) => {
                                on_disallowed(&entry);
                                store.skip_queued(&key, &entry, reason, shared::now_ms())?;
                                continue;
                            }
                        };
                        host.in_flight.insert(key.clone());
                        store.hand_out(&key);
                        host.next_at = now + host.delay;
                        let more = host.busy() < limit;
                        let spacing = self.take_ip_slot(&origin, now);
                        if more {
                            self.schedule(&origin, now);
                        }
                        return Ok(Some(Job::Page {
                            origin,
                            key,
                            entry,
                            url,
                            spacing,
                            robots: policy,
                        }));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A request to `origin` is handed out: its address (if limited) has one more in flight
    /// and the address's gap starts again. Returns the gaps its fetch task keeps again when
    /// it sends the request (see [`crate::politeness::SendGate`]).
    fn take_ip_slot(&mut self, origin: &str, now: Instant) -> Spacing {
        let Some(host) = self.hosts.get(origin) else {
            return Spacing {
                origin_gap: Duration::ZERO,
                address: None,
            };
        };
        let mut address = None;
        if let Address::Known(ip) = host.address
            && let Some(limits) = self.politeness.ip_limits()
            && self.addresses.take(ip, now)
        {
            address = Some((ip, limits.delay.min(host.delay)));
        }
        Spacing {
            origin_gap: host.delay,
            address,
        }
    }

    /// A request to `origin` ended: its address has a free slot (after its gap), and the
    /// origins waiting for one are scheduled again.
    fn release_ip_slot(&mut self, origin: &str, now: Instant) {
        let Some(Address::Known(ip)) = self.hosts.get(origin).map(|h| h.address) else {
            return;
        };
        for waiting in self.addresses.release(ip, now) {
            self.schedule(&waiting, now);
        }
    }

    /// An origin's name was looked up: `ip` is its first allowed address, `None` when the
    /// lookup failed.
    pub fn resolved(&mut self, origin: &str, ip: Option<IpAddr>, now: Instant) {
        if let Some(host) = self.hosts.get_mut(origin) {
            host.address = ip.map_or(Address::Unresolved, Address::Known);
            self.schedule(origin, now);
        }
    }

    /// A robots.txt fetch ended: the origin's new robots state.
    pub fn robots_done(&mut self, origin: &str, state: RobotsState, now: Instant) {
        let crawl_delay = match &state {
            RobotsState::Known { policy, .. } => policy.crawl_delay(),
            _ => None,
        };
        let delay = self.politeness.delay_for(origin, crawl_delay);
        self.release_ip_slot(origin, now);
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

    /// A page fetch failed (429, 5xx, timeout, network error) and will be tried again: its
    /// slot is free, the entry waits under its new key `requeued` (behind the origin's other
    /// URLs: [`PageStore::requeue`]), and the whole host waits `wait` (a server that is
    /// struggling gets no other request meanwhile).
    pub fn page_retry(
        &mut self,
        origin: &str,
        done: &[u8],
        requeued: Vec<u8>,
        entry: FrontierEntry,
        wait: Duration,
        now: Instant,
    ) {
        self.release_ip_slot(origin, now);
        if let Some(host) = self.hosts.get_mut(origin) {
            host.in_flight.remove(done);
            host.next_at = host.next_at.max(now + wait).max(now + host.delay);
        }
        self.push(
            vec![QueuedUrl {
                key: requeued,
                entry,
                replaces: None,
            }],
            now,
        );
    }

    /// A page answer took `elapsed`: a host that answers slowly is struggling, so the gap to
    /// its next request grows to `SLOW_FACTOR` times that (capped like `Crawl-delay`); once
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

    /// The origin's failures in a row (its circuit breaker's count; an answer resets it).
    pub fn failures_in_row(&self, origin: &str) -> u32 {
        self.hosts
            .get(origin)
            .map_or(0, |host| host.breaker.failures_in_row())
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

    /// How many hosts are in each of [`crate::metrics::HOST_STATES`], as
    /// [`Frontier::host_view`] names them.
    pub(crate) fn host_states(&self, now: Instant) -> [usize; HOST_STATES.len()] {
        let mut counts = [0; HOST_STATES.len()];
        for origin in self.hosts.keys() {
            let state = self.host_view(origin, now).map(|(_, state)| state);
            if let Some(i) = HOST_STATES.iter().position(|s| Some(*s) == state) {
                counts[i] += 1;
            }
        }
        counts
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
        self.release_ip_slot(origin, now);
        if let Some(host) = self.hosts.get_mut(origin) {
            host.in_flight.remove(key);
            host.next_at = host.next_at.max(now + host.delay);
            self.schedule(origin, now);
        }
    }
}

/// The next entry of an origin: from the buffer, refilled with up to `cap` entries from the
/// store when empty.
fn take_next(
    host: &mut HostQueue,
    store: &PageStore,
    origin: &str,
    cap: usize,
) -> Result<Option<(Vec<u8>, FrontierEntry)>, StoreError> {
    if host.buffered.is_empty() && host.more_in_store {
        let in_flight = &host.in_flight;
        let refill = store.queued_for(origin, cap + 1, &|key| in_flight.contains(key))?;
        host.more_in_store = refill.len() > cap;
        host.buffered = refill
            .into_iter()
            .take(cap)
            .map(|q| (q.key, q.entry))
            .collect();
    }
    Ok(host.buffered.pop_first())
}

#[cfg(test)]
mod tests;
