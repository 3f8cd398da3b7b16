//! Per-address gaps across workers, on Redis's clock.
//!
//! Hosts on one IP address may sit in different partitions, owned by different workers; each
//! worker's own [`SendGate`](crate::politeness::SendGate) keeps the gap only between its own requests. So
//! before a request to an address goes, a Lua script reads Redis's clock (`TIME`, never a
//! worker's) and the address's next allowed moment: if it has passed, it sets the next one a
//! gap later and lets the request go; otherwise it says how long to wait. With Redis away no
//! request goes: the fetch waits (fail closed) and the worker says so once.
//!
//! A connection made anew (at the start, after a failure, to a replica promoted by the
//! Sentinels) books no turn until a gap has passed since it was made: a booking the old
//! master took and never passed to its replica is then a whole gap behind any turn of the
//! new one. (The turns are on the server's clock: a promoted replica on another machine
//! brings its own, and a clock ahead of the old master's by more than that shortens one gap
//! by the difference.)

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::Script;
use tracing::{info, warn};

use super::connection::Redis;
use crate::politeness::SharedTurns;
use shared::partition::redis_keys::crawl as keys;

/// Answers `{0, now}` and books the next gap, or `{the microseconds left to wait, now}`
/// (Redis's clock, to the microsecond since the Unix epoch).
const TURN: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local gap = tonumber(ARGV[1])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if now >= next then
  redis.call('SET', KEYS[1], now + gap, 'PX', math.floor(gap / 1000) + 1000)
  return {0, now}
end
return {next - now, now}
";

/// How long a fetch waits before asking an unreachable Redis again.
const RETRY: Duration = Duration::from_millis(500);

/// The cross-worker address gate (cloning shares it).
#[derive(Clone)]
pub(crate) struct AddressGate {
    redis: Redis,
    turn: Arc<Script>,
    /// Whether the worker has said that Redis is away (said once per outage).
    waiting: Arc<AtomicBool>,
}

impl AddressGate {
    pub(crate) fn new(redis: Redis) -> Self {
        Self {
            redis,
            turn: Arc::new(Script::new(TURN)),
            waiting: Arc::default(),
        }
    }

    /// Waits until a request to `address` may go, `gap` after the last one any worker sent.
    /// Returns the turn's moment on Redis's clock (µs since the Unix epoch): the turns of
    /// every worker to one address are at least their gap apart on that one clock, whenever
    /// each worker gets Redis's answer.
    async fn wait(&self, address: IpAddr, gap: Duration) -> u64 {
        let gap_us = gap.as_micros() as u64;
        loop {
            let mut call = self.turn.prepare_invoke();
            call.key(keys::ip(address)).arg(gap_us);
            match self.redis.script_settled::<(u64, u64)>(&call, gap).await {
                Ok((0, turn_us)) => {
                    if self.waiting.swap(false, Ordering::Relaxed) {
                        info!(
                            redis = self.redis.url(),
                            "Redis answers again: fetches go on"
                        );
                    }
                    return turn_us;
                }
                Ok((wait_us, _)) => tokio::time::sleep(Duration::from_micros(wait_us)).await,
                Err(error) => {
                    if !self.waiting.swap(true, Ordering::Relaxed) {
                        warn!(redis = self.redis.url(), %error, "no Redis, no fetches: waiting for it");
                    }
                    tokio::time::sleep(RETRY).await;
                }
            }
        }
    }
}

impl SharedTurns for AddressGate {
    fn book(&self, address: IpAddr, gap: Duration) -> BoxFuture<'_, u64> {
        Box::pin(self.wait(address, gap))
    }
}
