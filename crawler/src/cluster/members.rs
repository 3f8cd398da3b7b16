//! The live workers, where each can open stores, and where each partition's store lives.
//!
//! Each worker beats every turn: a Lua script puts it in the `sift:workers` sorted set
//! scored by when its heartbeat runs out (on Redis's clock) and its reach in
//! `sift:reaches`, drops the workers whose heartbeat ran out, writes the home of each
//! partition it holds that Redis lost, and answers the live workers with their reaches and
//! every partition's home. Every worker computes the same shares from that answer
//! (`shares.rs`).

use std::collections::HashMap;
use std::time::Duration;

use redis::{RedisResult, Script};
use shared::partition::PartitionId;

use super::connection::Redis;
use super::reach::Reach;
use super::shares::Member;
use shared::partition::redis_keys::crawl as keys;

/// Beats for worker `ARGV[1]` (alive `ARGV[2]` ms more, reaching `ARGV[3]`, holding the
/// partitions `ARGV[4..]`), and answers the live workers (in the order their beats run out),
/// their reaches and every partition's home.
const BEAT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
if #dead > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  redis.call('HDEL', KEYS[2], unpack(dead))
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
for i = 4, #ARGV do redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[3]) end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
return {live, redis.call('HMGET', KEYS[2], unpack(live)), redis.call('HGETALL', KEYS[3])}
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

    /// Beats for `worker` (alive for `ttl` more, reaching `reach`, holding `held`), and
    /// answers every live worker and every partition's home.
    pub(crate) async fn beat(
        &self,
        worker: &str,
        ttl: Duration,
        reach: &Reach,
        held: impl Iterator<Item = PartitionId>,
    ) -> RedisResult<Beat> {
        let mut call = self.beat.prepare_invoke();
        call.key(keys::WORKERS)
            .key(keys::REACHES)
            .key(keys::HOMES)
            .arg(worker)
            .arg(ttl.as_millis() as u64)
            .arg(reach.to_value());
        for p in held {
            call.arg(p.dir_name());
        }
        let (names, reaches, homes): (Vec<String>, Vec<Option<String>>, Vec<String>) =
            self.redis.script(&call).await?;
        let mut live: Vec<Member> = names
            .into_iter()
            .zip(reaches)
            .map(|(name, reach)| (name, Reach::from_value(&reach.unwrap_or_default())))
            .collect();
        live.sort_by(|a, b| a.0.cmp(&b.0));
        let homes = homes
            .chunks_exact(2)
            .filter_map(|pair| {
                let p = PartitionId::from_dir_name(&pair[0])?;
                Some((p, Reach::from_value(&pair[1])))
            })
            .collect();
        Ok(Beat { live, homes })
    }

    /// The live workers (in the order their beats run out), without beating or writing.
    pub(crate) async fn live(&self) -> RedisResult<Vec<String>> {
        let mut call = self.live.prepare_invoke();
        call.key(keys::WORKERS);
        self.redis.script(&call).await
    }

    /// Leaves the set at once (a worker that stops cleanly).
    pub(crate) async fn leave(&self, worker: &str) -> RedisResult<()> {
        let mut pipe = redis::pipe();
        pipe.cmd("ZREM").arg(keys::WORKERS).arg(worker);
        pipe.cmd("HDEL").arg(keys::REACHES).arg(worker);
        let _: (u32, u32) = self.redis.pipe(&pipe, 2).await?;
        Ok(())
    }
}

/// One beat's answer.
pub(crate) struct Beat {
    /// The live workers, sorted by name, with their reaches.
    pub(crate) live: Vec<Member>,
    /// Each partition's home (the reach of the worker that last took its lease).
    pub(crate) homes: HashMap<PartitionId, Reach>,
}
