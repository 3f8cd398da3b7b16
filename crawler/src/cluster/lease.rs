//! Leases on partitions, with fencing.
//!
//! A worker owns a partition while its lease key holds `WORKER EPOCH`; the key expires after
//! the lease time unless renewed. Taking a lease raises the partition's epoch, which the
//! worker records in the partition's store ([`crate::PageStore::claim_partition`]): a store
//! is never written under an epoch older than one that wrote it. A store refusing a lease as
//! older than its stamp (Redis lost writes) raises the partition's epoch to the stamp, so
//! the next lease is newer: nothing refuses a worker for ever. Renewal is a Lua
//! check-and-extend (only the holder's exact value is extended), all of a worker's leases in
//! one call. On the worker's side each lease has a [`Fence`]: the moment its last renewal was
//! *sent* plus the lease time less a margin, so the fence falls before Redis lets the lease
//! go, whatever the delay of the answer; the store checks it before every write.

use std::time::Duration;

use redis::{RedisResult, Script};
use shared::partition::PartitionId;
use tokio::time::Instant;

use super::connection::Redis;
use super::reach::Reach;
use crate::store::Fence;
use shared::partition::redis_keys::crawl as keys;

/// Takes a free lease: `SET NX PX` of `WORKER EPOCH` with the epoch raised and the
/// partition's home (`ARGV[3]` in `KEYS[3]`) set to the taker's reach (`ARGV[4]`), or
/// nothing when the lease is held.
const TAKE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. epoch, 'NX', 'PX', ARGV[2])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
return epoch
";

/// Extends each lease still holding its owner's value; answers 1 or 0 per lease.
const RENEW: &str = r"
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    held[i] = 1
  else
    held[i] = 0
  end
end
return held
";

/// Deletes a lease if it still holds the owner's value.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// Raises a partition's epoch to at least `ARGV[1]` (a store's stamp), never lowers it.
const RAISE: &str = r"
local epoch = tonumber(redis.call('GET', KEYS[1]) or '0')
if epoch < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
";

/// How long a lease lasts, and how often it is renewed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeaseTimes {
    /// The lease's time to live in Redis.
    pub(crate) ttl: Duration,
}

impl LeaseTimes {
    /// Renewals go three times a lease's time.
    pub(crate) fn renew_every(self) -> Duration {
        self.ttl / 3
    }

    /// The fence falls this long before the lease could run out in Redis: the margin for
    /// the two clocks' rates.
    fn margin(self) -> Duration {
        self.ttl / 10
    }

    /// The end of the fence for a renewal sent at `sent`.
    pub(crate) fn fence_end(self, sent: Instant) -> Instant {
        sent + self.ttl - self.margin()
    }
}

/// A lease this worker holds.
#[derive(Clone, Debug)]
pub(crate) struct Lease {
    pub(crate) partition: PartitionId,
    pub(crate) epoch: u64,
    /// The lease key's value: `WORKER EPOCH`.
    value: String,
    pub(crate) fence: Fence,
}

/// The lease scripts.
pub(crate) struct Leases {
    redis: Redis,
    worker: String,
    times: LeaseTimes,
    take: Script,
    renew: Script,
    release: Script,
    raise: Script,
}

impl Leases {
    pub(crate) fn new(redis: Redis, worker: &str, times: LeaseTimes) -> Self {
        Self {
            redis,
            worker: worker.to_string(),
            times,
            take: Script::new(TAKE),
            renew: Script::new(RENEW),
            release: Script::new(RELEASE),
            raise: Script::new(RAISE),
        }
    }

    /// Takes `partition`'s lease if it is free, its store to live within `reach`.
    pub(crate) async fn take(
        &self,
        partition: PartitionId,
        reach: &Reach,
    ) -> RedisResult<Option<Lease>> {
        let sent = Instant::now();
        let mut call = self.take.prepare_invoke();
        call.key(keys::lease(partition))
            .key(keys::epoch(partition))
            .key(keys::HOMES)
            .arg(&self.worker)
            .arg(self.times.ttl.as_millis() as u64)
            .arg(partition.dir_name())
            .arg(reach.to_value());
        let epoch: Option<u64> = self.redis.script(&call).await?;
        Ok(epoch.map(|epoch| Lease {
            partition,
            epoch,
            value: format!("{} {epoch}", self.worker),
            fence: Fence::until(self.times.fence_end(sent)),
        }))
    }

    /// Renews every lease in `leases`, extending the fences of those still held; returns the
    /// partitions whose lease was lost (taken by another worker or expired).
    pub(crate) async fn renew(&self, leases: &[Lease]) -> RedisResult<Vec<PartitionId>> {
        if leases.is_empty() {
            return Ok(Vec::new());
        }
        let sent = Instant::now();
        let mut call = self.renew.prepare_invoke();
        call.arg(self.times.ttl.as_millis() as u64);
        for lease in leases {
            call.key(keys::lease(lease.partition)).arg(&lease.value);
        }
        let held: Vec<u8> = self.redis.script(&call).await?;
        let mut lost = Vec::new();
        for (lease, held) in leases.iter().zip(held) {
            if held == 1 {
                lease.fence.extend_to(self.times.fence_end(sent));
            } else {
                lease.fence.drop_now();
                lost.push(lease.partition);
            }
        }
        Ok(lost)
    }

    /// Gives a lease back (after its partition's store is closed).
    pub(crate) async fn release(&self, lease: &Lease) -> RedisResult<()> {
        lease.fence.drop_now();
        let mut call = self.release.prepare_invoke();
        call.key(keys::lease(lease.partition)).arg(&lease.value);
        let _: u8 = self.redis.script(&call).await?;
        Ok(())
    }

    /// Raises `partition`'s epoch to `stamp` (its store's) when Redis's is below: the next
    /// lease taken on it is newer than any that wrote the store.
    pub(crate) async fn raise_epoch(&self, partition: PartitionId, stamp: u64) -> RedisResult<()> {
        let mut call = self.raise.prepare_invoke();
        call.key(keys::epoch(partition)).arg(stamp);
        let _: u8 = self.redis.script(&call).await?;
        Ok(())
    }

    /// Which partitions are leased now, to whom (`WORKER EPOCH`).
    pub(crate) async fn holders(
        &self,
        partitions: impl Iterator<Item = PartitionId>,
    ) -> RedisResult<Vec<(PartitionId, Option<String>)>> {
        let partitions: Vec<PartitionId> = partitions.collect();
        let mut cmd = redis::cmd("MGET");
        for &p in &partitions {
            cmd.arg(keys::lease(p));
        }
        let values: Vec<Option<String>> = self.redis.query(&cmd).await?;
        Ok(partitions.into_iter().zip(values).collect())
    }
}
