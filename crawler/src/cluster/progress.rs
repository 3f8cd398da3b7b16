//! Where the crawl stands across workers: each partition's idle state, and whether the whole
//! crawl is done.
//!
//! A partition's owner writes `1 ID` in `sift:idle` when the partition is idle (nothing to
//! fetch, nothing in flight, nothing left to send) having applied its stream up to entry
//! `ID`, and `0` while it works. The crawl is done when, in one atomic look (a Lua script),
//! every partition with a stream is idle at its stream's last entry with nothing pending,
//! and every partition without one is idle. A partition only starts working again when a
//! link arrives, which moves its stream's last entry past what it reported; so a stale report
//! never ends the crawl early. A partition with no state at all (a Redis that lost its data,
//! before the owners wrote their states again) is not done.

use redis::{RedisResult, Script};
use shared::partition::{PartitionId, Partitions};

use super::connection::Redis;
use crate::crawl::EntryId;
use shared::partition::redis_keys::crawl as keys;

const DONE: &str = r"
local partitions = tonumber(ARGV[1])
for p = 0, partitions - 1 do
  local name = string.format('p-%03d', p)
  local stream = ARGV[2] .. name
  local state = redis.call('HGET', KEYS[1], name)
  if not state then return 0 end
  if redis.call('EXISTS', stream) == 1 then
    local info = redis.call('XINFO', 'STREAM', stream)
    local last = nil
    for i = 1, #info, 2 do
      if info[i] == 'last-generated-id' then last = info[i + 1] end
    end
    if state ~= ('1 ' .. last) then return 0 end
    local pending = redis.pcall('XPENDING', stream, ARGV[3])
    if type(pending) ~= 'table' or pending.err or pending[1] ~= 0 then return 0 end
  elseif string.sub(state, 1, 1) == '0' then
    return 0
  end
end
return 1
";

/// A partition's state as written in `sift:idle`: idle only once it is known how far its
/// stream is applied.
pub(crate) fn state_value(idle: bool, applied_through: Option<EntryId>) -> String {
    match applied_through {
        Some(through) if idle => format!("1 {through}"),
        _ => "0".to_string(),
    }
}

/// The idle states and the end of the crawl.
pub(crate) struct CrawlProgressBoard {
    redis: Redis,
    done: Script,
}

impl CrawlProgressBoard {
    pub(crate) fn new(redis: Redis) -> Self {
        Self {
            redis,
            done: Script::new(DONE),
        }
    }

    /// Writes partitions' states.
    pub(crate) async fn publish(&self, states: &[(PartitionId, String)]) -> RedisResult<()> {
        if states.is_empty() {
            return Ok(());
        }
        let mut cmd = redis::cmd("HSET");
        cmd.arg(keys::IDLE);
        for (p, value) in states {
            cmd.arg(p.dir_name()).arg(value);
        }
        self.redis.query::<()>(&cmd).await
    }

    /// Whether the whole crawl is done.
    pub(crate) async fn done(&self, partitions: Partitions) -> RedisResult<bool> {
        let mut call = self.done.prepare_invoke();
        call.key(keys::IDLE)
            .arg(partitions.count())
            .arg(keys::LINKS_PREFIX)
            .arg(keys::GROUP);
        let done: u8 = self.redis.script(&call).await?;
        Ok(done == 1)
    }
}
