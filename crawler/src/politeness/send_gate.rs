//! The gaps between requests, kept again at the moment a request is sent.
//!
//! The [`Frontier`](crate::frontier::Frontier) spaces requests when it hands them out, by its
//! own clock. A request is sent later: after its task is spawned, scheduled and run. When
//! the crawler is short of CPU (another program busy on the machine, a slow store read in the
//! crawl loop), one task can be held up while the next, handed out a gap later, runs at once,
//! and the two reach the server together. The hour soak saw exactly that: 5 of 41,314 gaps to
//! one address under the address's delay, two of them 0.1 ms apart. So every fetch task asks
//! the [`SendGate`] for its turn just before it sends: the gate lets a request go only once
//! the origin's gap and the address's gap have passed since the last request *sent* to
//! each, and records the moment it lets one go.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// The gaps one request must keep, set by the frontier when it hands the request out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spacing {
    /// The origin's gap (the host's delay in force); the origin is the job's.
    pub origin_gap: Duration,
    /// The address the origin resolves to and its gap, when per-address limits apply.
    pub address: Option<(IpAddr, Duration)>,
}

/// What the gate keeps a send time for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Origin(String),
    Address(IpAddr),
}

/// The last send to each origin and address, and the gap it asked to be kept after it.
#[derive(Default)]
struct Sends {
    last: HashMap<Key, (Instant, Duration)>,
    /// The map is swept of entries whose gap has passed when it grows past this.
    sweep_at: usize,
}

/// Sends below this many entries are never swept.
const MIN_SWEEP: usize = 1024;

impl Sends {
    /// When a request keeping `gaps` may go: now, or the latest end of a gap still running.
    fn earliest(&self, gaps: &[(Key, Duration)]) -> Option<Instant> {
        gaps.iter()
            .filter_map(|(key, gap)| self.last.get(key).map(|(at, _)| *at + *gap))
            .max()
    }

    fn record(&mut self, gaps: Vec<(Key, Duration)>, now: Instant) {
        for (key, gap) in gaps {
            self.last.insert(key, (now, gap));
        }
        if self.last.len() >= self.sweep_at.max(MIN_SWEEP) {
            self.last.retain(|_, (at, gap)| *at + *gap > now);
            self.sweep_at = self.last.len() * 2;
        }
    }
}

/// Lets each request go only when its [`Spacing`] has been kept since the last request sent
/// to the same origin and to the same address. Shared by every fetch task of a crawl
/// (cloning shares it).
///
/// It backs the frontier up and never replaces it: the frontier decides the order and the
/// gaps (including the longer waits of back-off, `Crawl-delay` and breakers) and holds a
/// request's slot; the gate only closes the window between handing out and sending. Its
/// memory is bounded by the origins and addresses whose gap is still running.
#[derive(Clone, Default)]
pub(crate) struct SendGate {
    sends: Arc<Mutex<Sends>>,
}

impl SendGate {
    /// A gate that has seen no request.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Waits until `spacing` is kept for a request to `origin`, then records the request as
    /// sent now. Call it right before sending: the moment recorded is the one the next
    /// request is spaced from.
    pub(crate) async fn wait_turn(&self, origin: &str, spacing: &Spacing) {
        let mut gaps = vec![(Key::Origin(origin.to_string()), spacing.origin_gap)];
        if let Some((ip, gap)) = spacing.address {
            gaps.push((Key::Address(ip), gap));
        }
        loop {
            let wait_until = {
                let mut sends = self.sends.lock().unwrap_or_else(PoisonError::into_inner);
                let now = Instant::now();
                match sends.earliest(&gaps) {
                    Some(at) if at > now => at,
                    _ => {
                        sends.record(gaps, now);
                        return;
                    }
                }
            };
            // Checked again after the sleep: another request may have gone meanwhile.
            tokio::time::sleep_until(wait_until).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const ADDRESS: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 7));
    const OTHER_ADDRESS: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 8));

    /// A request to `origin` and the gaps it keeps.
    fn spacing(origin: &str, origin_ms: u64, address: Option<(IpAddr, u64)>) -> (String, Spacing) {
        let spacing = Spacing {
            origin_gap: Duration::from_millis(origin_ms),
            address: address.map(|(ip, ms)| (ip, Duration::from_millis(ms))),
        };
        (origin.to_string(), spacing)
    }

    /// Starts `spacings` together (as tasks handed out at different times but held up until
    /// the same moment would) and returns when each was let go, from the start, in ms.
    async fn send_together(gate: &SendGate, spacings: Vec<(String, Spacing)>) -> Vec<u128> {
        let start = Instant::now();
        let tasks: Vec<_> = spacings
            .into_iter()
            .map(|(origin, spacing)| {
                let gate = gate.clone();
                tokio::spawn(async move {
                    gate.wait_turn(&origin, &spacing).await;
                    start.elapsed().as_millis()
                })
            })
            .collect();
        let mut sent = Vec::new();
        for task in tasks {
            sent.push(task.await.expect("task ran"));
        }
        sent.sort_unstable();
        sent
    }

    #[tokio::test(start_paused = true)]
    async fn held_up_requests_to_one_address_still_go_a_gap_apart() {
        let gate = SendGate::new();
        let sent = send_together(
            &gate,
            vec![
                spacing("http://a.test", 0, Some((ADDRESS, 80))),
                spacing("http://b.test", 0, Some((ADDRESS, 80))),
                spacing("http://c.test", 0, Some((ADDRESS, 80))),
            ],
        )
        .await;
        assert_eq!(sent, vec![0, 80, 160]);
    }

    #[tokio::test(start_paused = true)]
    async fn other_addresses_and_origins_do_not_wait() {
        let gate = SendGate::new();
        let sent = send_together(
            &gate,
            vec![
                spacing("http://a.test", 1000, Some((ADDRESS, 80))),
                spacing("http://b.test", 1000, Some((OTHER_ADDRESS, 80))),
                spacing("http://c.test", 1000, None),
            ],
        )
        .await;
        assert_eq!(sent, vec![0, 0, 0]);
    }

    #[tokio::test(start_paused = true)]
    async fn an_origin_keeps_its_own_gap_without_address_limits() {
        let gate = SendGate::new();
        let sent = send_together(
            &gate,
            vec![
                spacing("http://a.test", 1000, None),
                spacing("http://a.test", 1000, None),
            ],
        )
        .await;
        assert_eq!(sent, vec![0, 1000]);
    }

    #[tokio::test(start_paused = true)]
    async fn the_gap_runs_from_the_send_not_from_the_hand_out() {
        let gate = SendGate::new();
        let first = spacing("http://a.test", 0, Some((ADDRESS, 80)));
        gate.wait_turn(&first.0, &first.1).await;
        // Held up for 50 ms after the first went: the next may go 30 ms later.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let start = Instant::now();
        let (origin, second) = spacing("http://b.test", 0, Some((ADDRESS, 80)));
        gate.wait_turn(&origin, &second).await;
        assert_eq!(start.elapsed(), Duration::from_millis(30));
        // Held up past the gap: it goes at once.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let start = Instant::now();
        gate.wait_turn(&first.0, &first.1).await;
        assert_eq!(start.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn the_longer_of_the_two_gaps_holds() {
        let gate = SendGate::new();
        let sent = send_together(
            &gate,
            vec![
                spacing("http://a.test", 300, Some((ADDRESS, 80))),
                spacing("http://a.test", 300, Some((ADDRESS, 80))),
            ],
        )
        .await;
        assert_eq!(sent, vec![0, 300]);
    }

    #[tokio::test(start_paused = true)]
    async fn memory_holds_only_the_gaps_still_running() {
        let gate = SendGate::new();
        for i in 0..3 * MIN_SWEEP {
            let origin = format!("http://h{i}.test");
            let (origin, turn) = spacing(&origin, 10, None);
            gate.wait_turn(&origin, &turn).await;
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let sends = gate.sends.lock().expect("not poisoned");
        assert!(
            sends.last.len() <= MIN_SWEEP,
            "{} entries kept",
            sends.last.len()
        );
    }
}
