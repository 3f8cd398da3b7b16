//! Requests to one IP address from every origin on it, as the frontier hands them out: how
//! many are in flight and when the address's gap ends, so that origins sharing an address
//! (virtual hosts, a CDN's edge) ask it together no more than its [`IpLimits`] allow.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use tokio::time::Instant;

use super::IpLimits;

/// Whether an origin may send a request to its address now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddressTurn {
    /// It may.
    Go,
    /// The address has its most requests in flight: the origin is woken when one ends
    /// ([`AddressSlots::release`] names it).
    Full,
    /// The address's gap runs until then.
    NotBefore(Instant),
}

/// One address's requests.
#[derive(Debug)]
struct Slot {
    in_flight: usize,
    /// When a request to the address last started or ended. An origin may send the next one
    /// its gap later: the address's delay, or the origin's own when that is shorter.
    last_event: Instant,
    /// Origins that found the address full, woken when a request to it ends.
    waiting: Vec<String>,
}

/// Every address's requests in one crawl (addresses are kept for the crawl's life: one small
/// entry per address the crawl reached).
#[derive(Debug)]
pub(crate) struct AddressSlots {
    slots: HashMap<IpAddr, Slot>,
    /// When the run began: a run killed just before it may have asked any address a moment
    /// ago, so none is asked before its gap has passed since then.
    started: Instant,
}

impl AddressSlots {
    /// No address asked yet, in a run that began at `started`.
    pub(crate) fn new(started: Instant) -> Self {
        Self {
            slots: HashMap::new(),
            started,
        }
    }

    /// Whether `origin`, which may have `origin_concurrency` requests in flight and keeps
    /// `origin_delay` between them, may send one to `ip` at `now`. A full address notes the
    /// origin as waiting.
    pub(crate) fn turn(
        &mut self,
        ip: IpAddr,
        limits: IpLimits,
        origin: &str,
        origin_concurrency: usize,
        origin_delay: Duration,
        now: Instant,
    ) -> AddressTurn {
        let started = self.started;
        let slot = self.slots.entry(ip).or_insert_with(|| Slot {
            in_flight: 0,
            last_event: started,
            waiting: Vec::new(),
        });
        if slot.in_flight >= limits.concurrency.max(origin_concurrency) {
            slot.waiting.push(origin.to_string());
            return AddressTurn::Full;
        }
        let at = slot.last_event + limits.delay.min(origin_delay);
        if at > now {
            AddressTurn::NotBefore(at)
        } else {
            AddressTurn::Go
        }
    }

    /// A request to `ip` is handed out: one more in flight, and the gap starts again. False
    /// when the address was never asked for a [`turn`](Self::turn).
    pub(crate) fn take(&mut self, ip: IpAddr, now: Instant) -> bool {
        let Some(slot) = self.slots.get_mut(&ip) else {
            return false;
        };
        slot.in_flight += 1;
        slot.last_event = now;
        true
    }

    /// A request to `ip` ended: one fewer in flight, the gap starts again, and the origins
    /// that waited for a free slot are returned to be scheduled again.
    pub(crate) fn release(&mut self, ip: IpAddr, now: Instant) -> Vec<String> {
        let Some(slot) = self.slots.get_mut(&ip) else {
            return Vec::new();
        };
        slot.in_flight = slot.in_flight.saturating_sub(1);
        slot.last_event = now;
        std::mem::take(&mut slot.waiting)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const IP: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 9));

    fn limits(concurrency: usize, delay_ms: u64) -> IpLimits {
        IpLimits {
            concurrency,
            delay: Duration::from_millis(delay_ms),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_address_wakes_its_waiting_origins_when_a_request_ends() {
        let start = Instant::now();
        let mut slots = AddressSlots::new(start);
        let later = start + Duration::from_secs(1);
        let delay = Duration::from_secs(5);
        let turn = |slots: &mut AddressSlots, origin| {
            slots.turn(IP, limits(1, 0), origin, 1, delay, later)
        };
        assert_eq!(turn(&mut slots, "http://a.test"), AddressTurn::Go);
        assert!(slots.take(IP, later));
        assert_eq!(turn(&mut slots, "http://b.test"), AddressTurn::Full);
        assert_eq!(turn(&mut slots, "http://c.test"), AddressTurn::Full);
        assert_eq!(slots.release(IP, later), ["http://b.test", "http://c.test"]);
        assert!(slots.release(IP, later).is_empty(), "woken once");
    }

    #[tokio::test(start_paused = true)]
    async fn the_shorter_of_the_two_gaps_runs_from_the_start_and_each_event() {
        let start = Instant::now();
        let mut slots = AddressSlots::new(start);
        let ms = Duration::from_millis;
        // A fresh run keeps the gap from its start (a killed run may have just asked).
        assert_eq!(
            slots.turn(IP, limits(4, 300), "http://a.test", 1, ms(100), start),
            AddressTurn::NotBefore(start + ms(100)),
            "the origin's own shorter gap holds"
        );
        assert_eq!(
            slots.turn(
                IP,
                limits(4, 300),
                "http://a.test",
                1,
                ms(1000),
                start + ms(300)
            ),
            AddressTurn::Go
        );
        assert!(slots.take(IP, start + ms(300)));
        assert_eq!(
            slots.turn(
                IP,
                limits(4, 300),
                "http://b.test",
                1,
                ms(1000),
                start + ms(400)
            ),
            AddressTurn::NotBefore(start + ms(600))
        );
        assert!(
            !slots.take("127.0.0.10".parse().unwrap(), start),
            "never asked"
        );
    }
}
