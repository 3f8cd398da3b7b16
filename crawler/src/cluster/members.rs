//! The live workers and each one's share of the partitions.
//!
//! Each worker beats every few seconds: a Lua script puts it in the `sift:workers` sorted set
//! scored by when its heartbeat runs out (on Redis's clock), drops the workers whose heartbeat
//! ran out, and answers the live ones. Every worker computes the same shares from that list:
//! P partitions over N workers, `P / N` each and one more for the first `P mod N` by name.

use std::time::Duration;

use redis::{RedisResult, Script};

use super::connection::Redis;
use shared::partition::redis_keys::crawl as keys;

/// Beats and answers the live workers (in the order their beats run out).
const BEAT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[1] ~= '' then redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1]) end
return redis.call('ZRANGE', KEYS[1], 0, -1)
";

/// Answers the live workers, writing nothing (what `crawler status` runs: its Redis user
/// may only read).
const LIVE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
";

/// The heartbeat scripts.
pub(crate) struct Members {
    redis: Redis,
    beat: Script,
    live: Script,
}

impl Members {
    pub(crate) fn new(redis: Redis) -> Self {
        Self {
            redis,
            beat: Script::new(BEAT),
            live: Script::new(LIVE),
        }
    }

    /// Beats for `worker` (alive for `ttl` more), and answers every live worker.
    pub(crate) async fn beat(&self, worker: &str, ttl: Duration) -> RedisResult<Vec<String>> {
        let mut call = self.beat.prepare_invoke();
        call.key(keys::WORKERS)
            .arg(worker)
            .arg(ttl.as_millis() as u64);
        self.redis.script(&call).await
    }

    /// The live workers (in the order their beats run out), without beating or writing.
    pub(crate) async fn live(&self) -> RedisResult<Vec<String>> {
        let mut call = self.live.prepare_invoke();
        call.key(keys::WORKERS);
        self.redis.script(&call).await
    }

    /// Leaves the set at once (a worker that stops cleanly).
    pub(crate) async fn leave(&self, worker: &str) -> RedisResult<()> {
        let mut cmd = redis::cmd("ZREM");
        cmd.arg(keys::WORKERS).arg(worker);
        let _: u32 = self.redis.query(&cmd).await?;
        Ok(())
    }
}

/// How many of `partitions` `worker` should hold among the `live` workers (sorted by name);
/// a worker missing from the list (its beat not seen yet) counts as the last.
pub(crate) fn share(partitions: u32, live: &[String], worker: &str) -> u32 {
    let count = live.len().max(1) as u32;
    let position = live.iter().position(|w| w == worker).unwrap_or(live.len()) as u32;
    partitions / count + u32::from(position < partitions % count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_differ_by_at_most_one() {
        for workers in 1..=9usize {
            let live: Vec<String> = (0..workers).map(|i| format!("w{i}")).collect();
            for partitions in [1u32, 7, 64] {
                let shares: Vec<u32> = live.iter().map(|w| share(partitions, &live, w)).collect();
                assert_eq!(
                    shares.iter().sum::<u32>(),
                    partitions,
                    "{workers} {partitions}"
                );
                let (min, max) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
                assert!(max - min <= 1, "{shares:?}");
            }
        }
        assert_eq!(share(64, &[], "w"), 64);
    }
}
