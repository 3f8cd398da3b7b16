//! Links across partitions, through one Redis Stream per partition.
//!
//! Sending: a partition's parcels (see `crawl/parcel_send.rs`) go to their targets' streams
//! (`XADD`, pipelined), and the same pipeline reads the targets' confirmations of the
//! source's parcels (`sift:confirmed:p-SOURCE`).
//! Receiving: one reader per worker, on a connection of its own, reads the streams of every
//! partition the worker owns with one blocking `XREADGROUP` (group `owners`, the worker as
//! consumer), after first claiming what a former owner read and never acknowledged
//! (`XAUTOCLAIM`), and every few seconds what any consumer has left pending too long (a
//! worker that lost the lease can read once more after the take-over). Each entry's parcel
//! is handed to its partition's crawl as a [`Delivery`]; once the crawl has applied it in one store batch, the sources' marks are
//! confirmed (raised, never lowered), then the entry is acknowledged (`XACK`) and the stream
//! trimmed below it (`XTRIM MINID`). A crash between applying and acknowledging redelivers
//! the parcel, and the store's marks skip it.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamInfoGroupsReply, StreamReadReply};
use redis::{RedisResult, Script, Value};
use shared::partition::{PartitionId, Partitions};
use shared::record::{LinkParcel, Record};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, warn};

use super::connection::Redis;
use crate::crawl::{Delivery, EntryId, OutboxSink, Receipt, SendError, SentOn};
use crate::store::backup::BackupRecord;
use crate::store::{ArrivedParcel, Marks};
use shared::partition::redis_keys::crawl as keys;

/// Raises each source's confirmation of the target `ARGV[1]` to its mark (`ARGV[i + 1]` for
/// `KEYS[i]`); never lowers one (acknowledgements may land out of order).
/// A token for Redis's data (`sift:instance`), written where there is none: never the
/// same twice, so a Redis that lost its data always ends up with a new one.
fn fresh_token() -> String {
    static STARTED: LazyLock<u128> = LazyLock::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    });
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{}-{}-{n}", std::process::id(), *STARTED)
}

static CONFIRM: LazyLock<Script> = LazyLock::new(|| Script::new(CONFIRM_LUA));
const CONFIRM_LUA: &str = r"
for i, key in ipairs(KEYS) do
  local mark = tonumber(ARGV[i + 1])
  if tonumber(redis.call('HGET', key, ARGV[1]) or '0') < mark then
    redis.call('HSET', key, ARGV[1], mark)
  end
end
return 1
";

/// Entries read at once per stream.
const READ_COUNT: usize = 256;
/// How long one blocking read waits for new entries.
const BLOCK: Duration = Duration::from_millis(500);
/// How often a reader claims its partitions' entries left pending under another consumer.
const SWEEP_EVERY: Duration = Duration::from_secs(5);
/// How long an entry is pending, unacknowledged, before a sweep claims it: far longer than
/// applying a parcel takes (an entry of this worker's own claimed again is skipped by the
/// store's marks).
const STALE: Duration = Duration::from_secs(10);

/// A partition's parcels go to the other partitions' streams.
impl OutboxSink for Redis {
    fn send(
        &self,
        source: PartitionId,
        parcels: Vec<(PartitionId, LinkParcel)>,
    ) -> BoxFuture<'static, Result<Receipt, SendError>> {
        let redis = self.clone();
        Box::pin(async move {
            send(&redis, source, &parcels)
                .await
                .map_err(SendError::from)
        })
    }

    fn backed_up(
        &self,
        target: PartitionId,
        record: BackupRecord,
        marks: Marks,
    ) -> BoxFuture<'static, Result<(), SendError>> {
        let redis = self.clone();
        Box::pin(async move {
            confirm(&redis, target, &marks).await?;
            let mut hset = redis::cmd("HSET");
            hset.arg(keys::BACKUPS)
                .arg(target.dir_name())
                .arg(serde_json::to_string(&record).unwrap_or_default());
            redis.query::<()>(&hset).await.map_err(SendError::from)
        })
    }
}

/// Sends `source`'s parcels to their targets' streams, in order, and reads the targets'
/// confirmations in the same pipeline.
async fn send(
    redis: &Redis,
    source: PartitionId,
    parcels: &[(PartitionId, LinkParcel)],
) -> RedisResult<Receipt> {
    let token = fresh_token();
    let mut pipe = xadds(parcels);
    pipe.cmd("HGETALL").arg(keys::confirmed(source));
    pipe.cmd("SET")
        .arg(keys::INSTANCE)
        .arg(&token)
        .arg("NX")
        .arg("GET");
    let ((confirmed, instance), connection): ((HashMap<String, u64>, Option<String>), u64) =
        redis.pipe_on(&pipe, parcels.len() + 2).await?;
    // By target: two receipts with the same confirmations compare equal.
    let confirmed: BTreeMap<PartitionId, u64> = confirmed
        .into_iter()
        .filter_map(|(target, mark)| Some((PartitionId::from_dir_name(&target)?, mark)))
        .collect();
    let confirmed = confirmed.into_iter().collect();
    Ok(Receipt {
        confirmed,
        sent_on: SentOn {
            connection,
            // None: there was none, and this process's token was written.
            instance: instance.unwrap_or(token),
        },
    })
}

/// Tells every sender that what it sent may be lost (a partition restored from a backup
/// older than what it applied): a new `sift:instance` token, so each sends its unconfirmed
/// parcels again.
pub(crate) async fn all_may_be_lost(redis: &Redis) -> RedisResult<()> {
    let mut set = redis::cmd("SET");
    set.arg(keys::INSTANCE).arg(fresh_token());
    redis.query::<()>(&set).await
}

/// What each source's parcels to `target` are confirmed up to, as Redis has it (the sources
/// that confirmed none left out): what earlier holders of `target` applied.
pub(crate) async fn confirmed_to(
    redis: &Redis,
    target: PartitionId,
    partitions: Partitions,
) -> RedisResult<Marks> {
    let sources: Vec<PartitionId> = partitions.all().filter(|&s| s != target).collect();
    let mut pipe = redis::pipe();
    for &source in &sources {
        pipe.cmd("HGET")
            .arg(keys::confirmed(source))
            .arg(target.dir_name());
    }
    let marks: Vec<Option<u64>> = redis.pipe(&pipe, sources.len()).await?;
    Ok(sources
        .into_iter()
        .zip(marks)
        .filter_map(|(source, mark)| Some((source, mark?)))
        .collect())
}

/// Sends a worker's seeds to their partitions' streams.
pub(crate) async fn send_seeds(
    redis: &Redis,
    parcels: &[(PartitionId, LinkParcel)],
) -> RedisResult<()> {
    redis.pipe::<()>(&xadds(parcels), parcels.len()).await
}

/// A pipeline of one `XADD` per parcel, to its target's stream.
fn xadds(parcels: &[(PartitionId, LinkParcel)]) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    for (target, parcel) in parcels {
        pipe.cmd("XADD")
            .arg(keys::links(*target))
            .arg("*")
            .arg("p")
            .arg(parcel.encode())
            .ignore();
    }
    pipe
}

/// The partitions this worker reads for, each with the way to its crawl.
pub(crate) type Readers = BTreeMap<PartitionId, mpsc::Sender<Delivery>>;

/// Reads the streams of the partitions in `owned` until `owned` closes, handing each parcel
/// to its partition's crawl and acknowledging it once applied. With Redis away, it waits and
/// tries again.
pub(crate) async fn read(redis: Redis, worker: String, mut owned: watch::Receiver<Readers>) {
    // The crawls taken over, each by the inbox it was taken over for.
    let mut reading = Readers::new();
    let mut connection = None;
    let mut complained = false;
    let mut swept = tokio::time::Instant::now();
    loop {
        if owned.has_changed().is_err() {
            return;
        }
        let current = owned.borrow_and_update().clone();
        forget_replaced(&mut reading, &current);
        let result = async {
            let blocking = match connection.as_mut() {
                Some(blocking) => blocking,
                None => connection.insert(redis.blocking(BLOCK).await?),
            };
            for (&p, crawl) in &current {
                if let Entry::Vacant(slot) = reading.entry(p) {
                    take_over(&redis, &worker, p, crawl).await?;
                    slot.insert(crawl.clone());
                }
            }
            if reading.is_empty() {
                return Ok(false);
            }
            if swept.elapsed() >= SWEEP_EVERY {
                // A worker that lost a partition's lease (stopped, or cut off from Redis)
                // can still read one more batch of its stream after the new owner took it
                // over and claimed what was pending then: such entries would stay pending
                // under the old consumer, unapplied, and hold the crawl's end back for ever.
                for (&p, crawl) in &reading {
                    claim(&redis, &worker, p, STALE, crawl).await?;
                }
                swept = tokio::time::Instant::now();
            }
            let mut cmd = redis::cmd("XREADGROUP");
            cmd.arg("GROUP")
                .arg(keys::GROUP)
                .arg(&worker)
                .arg("COUNT")
                .arg(READ_COUNT)
                .arg("BLOCK")
                .arg(BLOCK.as_millis() as u64)
                .arg("STREAMS");
            for &p in reading.keys() {
                cmd.arg(keys::links(p));
            }
            for _ in reading.keys() {
                cmd.arg(">");
            }
            let reply: Option<StreamReadReply> = blocking.query(&cmd).await?;
            for stream in reply.map(|r| r.keys).unwrap_or_default() {
                let Some(p) = stream
                    .key
                    .strip_prefix(keys::LINKS_PREFIX)
                    .and_then(PartitionId::from_dir_name)
                else {
                    continue;
                };
                if let Some(crawl) = reading.get(&p) {
                    deliver(&redis, p, stream.ids, crawl).await;
                }
            }
            RedisResult::Ok(true)
        }
        .await;
        match result {
            Ok(read_some) => {
                complained = false;
                if !read_some {
                    // Nothing owned yet: wait for a partition.
                    let _ = tokio::time::timeout(BLOCK, owned.changed()).await;
                }
            }
            Err(error) => {
                if !complained {
                    warn!(redis = redis.url(), %error, "cannot read the partitions' links from Redis: waiting for it");
                    complained = true;
                }
                connection = None;
                reading.clear();
                tokio::time::sleep(BLOCK).await;
            }
        }
    }
}

/// Forgets the crawls taken over that are no longer `current`: let go of, or let go of and
/// taken again since the last look (a lease lost and retaken within one blocking read). A
/// crawl taken again is a new one, with a new inbox: it is told where its stream stands
/// only by its own take-over, and until then its state names no entry applied, which holds
/// the crawl's end back for ever once no link comes.
fn forget_replaced(reading: &mut Readers, current: &Readers) {
    reading.retain(|p, taken| current.get(p).is_some_and(|now| now.same_channel(taken)));
}

/// Starts reading partition `p`'s stream: its group made if missing, what a former owner
/// read and never acknowledged claimed and delivered, then the point the group has read to
/// delivered as applied (every entry up to it is acknowledged or was just claimed).
async fn take_over(
    redis: &Redis,
    worker: &str,
    p: PartitionId,
    crawl: &mpsc::Sender<Delivery>,
) -> RedisResult<()> {
    let key = keys::links(p);
    let mut create = redis::cmd("XGROUP");
    create
        .arg("CREATE")
        .arg(&key)
        .arg(keys::GROUP)
        .arg("0")
        .arg("MKSTREAM");
    match redis.query::<()>(&create).await {
        Ok(()) => {}
        Err(error) if error.code() == Some("BUSYGROUP") => {}
        Err(error) => return Err(error),
    }
    let mut info = redis::cmd("XINFO");
    info.arg("GROUPS").arg(&key);
    let groups: StreamInfoGroupsReply = redis.query(&info).await?;
    let read_to = groups
        .groups
        .iter()
        .find(|g| g.name == keys::GROUP)
        .and_then(|g| EntryId::parse(&g.last_delivered_id))
        .unwrap_or_default();
    claim(redis, worker, p, Duration::ZERO, crawl).await?;
    let _ = crawl.send(Delivery::TakenAt(read_to)).await;
    Ok(())
}

/// Claims for `worker` the entries of `p`'s stream pending for at least `idle` under any
/// consumer, and delivers them to its crawl. Pending entries the stream no longer holds
/// (trimmed past by a later acknowledgement) are dropped from the group by Redis itself.
async fn claim(
    redis: &Redis,
    worker: &str,
    p: PartitionId,
    idle: Duration,
    crawl: &mpsc::Sender<Delivery>,
) -> RedisResult<()> {
    let key = keys::links(p);
    let mut cursor = "0-0".to_string();
    loop {
        let mut claim = redis::cmd("XAUTOCLAIM");
        claim
            .arg(&key)
            .arg(keys::GROUP)
            .arg(worker)
            .arg(idle.as_millis() as u64)
            .arg(&cursor)
            .arg("COUNT")
            .arg(READ_COUNT);
        let reply: StreamAutoClaimReply = redis.query(&claim).await?;
        if !reply.deleted_ids.is_empty() {
            debug!(partition = %p, entries = reply.deleted_ids.len(), "pending links no longer in the stream dropped");
        }
        if !reply.claimed.is_empty() {
            debug!(partition = %p, entries = reply.claimed.len(), "claimed links another consumer read");
            deliver(redis, p, reply.claimed, crawl).await;
        }
        if reply.next_stream_id == "0-0" || reply.next_stream_id.is_empty() {
            return Ok(());
        }
        cursor = reply.next_stream_id;
    }
}

/// Hands entries of `p`'s stream to its crawl, and acknowledges them once applied.
async fn deliver(
    redis: &Redis,
    p: PartitionId,
    entries: Vec<StreamId>,
    crawl: &mpsc::Sender<Delivery>,
) {
    let mut parcels = Vec::new();
    let mut ids = Vec::with_capacity(entries.len());
    let mut through = EntryId::default();
    for entry in entries {
        let Some(id) = EntryId::parse(&entry.id) else {
            continue;
        };
        through = through.max(id);
        ids.push(entry.id.clone());
        match parcel_of(&entry.map) {
            Some(parcel) => parcels.push(ArrivedParcel::from(parcel)),
            None => {
                warn!(partition = %p, id = %entry.id, "a stream entry that is no link parcel: acknowledged and dropped")
            }
        }
    }
    if ids.is_empty() {
        return;
    }
    let (applied, done) = oneshot::channel();
    let delivery = Delivery::Parcels {
        parcels,
        through,
        applied,
    };
    if crawl.send(delivery).await.is_err() {
        // The partition was let go: its next owner claims the entries (at its take-over,
        // or at a sweep once they are stale).
        return;
    }
    let redis = redis.clone();
    tokio::spawn(async move {
        let Ok(marks) = done.await else {
            return;
        };
        shared::fail_point!("crawler::cluster::links::before_ack", |_| {
            std::process::abort()
        });
        // Until Redis has it: an entry left pending would hold the crawl's end back (a later
        // owner would claim it and skip it by its marks), and a confirmation left unsaid
        // would keep the senders' parcels waiting.
        while let Err(error) = acknowledge(&redis, p, &marks, &ids, through).await {
            debug!(partition = %p, %error, "links applied, not yet acknowledged: trying again");
            tokio::time::sleep(BLOCK).await;
        }
    });
}

/// Confirms to each source in `marks` that target `p` applied its parcels up to the mark.
async fn confirm(redis: &Redis, p: PartitionId, marks: &Marks) -> RedisResult<()> {
    if marks.is_empty() {
        return Ok(());
    }
    let mut call = CONFIRM.prepare_invoke();
    call.arg(p.dir_name());
    for (source, _) in marks {
        call.key(keys::confirmed(*source));
    }
    for (_, mark) in marks {
        call.arg(*mark);
    }
    redis.script::<()>(&call).await
}

/// Confirms the sources' marks to them (none when backups hold confirmations back), then
/// acknowledges the entries and trims the stream
/// below them: a trimmed parcel was confirmed first.
async fn acknowledge(
    redis: &Redis,
    p: PartitionId,
    marks: &Marks,
    ids: &[String],
    through: EntryId,
) -> RedisResult<()> {
    confirm(redis, p, marks).await?;
    let key = keys::links(p);
    let mut pipe = redis::pipe();
    pipe.cmd("XACK")
        .arg(&key)
        .arg(keys::GROUP)
        .arg(ids)
        .ignore();
    pipe.cmd("XTRIM")
        .arg(&key)
        .arg("MINID")
        .arg(through.next().to_string())
        .ignore();
    redis.pipe::<()>(&pipe, 2).await
}

fn parcel_of(fields: &HashMap<String, Value>) -> Option<LinkParcel> {
    let bytes: Vec<u8> = redis::from_redis_value(fields.get("p")?.clone()).ok()?;
    LinkParcel::decode(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crawl_let_go_of_and_taken_again_between_two_looks_is_taken_over_again() {
        let p = PartitionId::new(3);
        let q = PartitionId::new(5);
        let (first, _first_rx) = mpsc::channel(1);
        let (again, _again_rx) = mpsc::channel(1);
        let (other, _other_rx) = mpsc::channel(1);
        let mut reading: Readers = [(p, first), (q, other.clone())].into();
        // p let go of and taken again (a new crawl, a new inbox); q still the same crawl.
        let current: Readers = [(p, again), (q, other)].into();
        forget_replaced(&mut reading, &current);
        assert_eq!(reading.keys().copied().collect::<Vec<_>>(), vec![q]);
        // q let go of.
        forget_replaced(&mut reading, &Readers::new());
        assert!(reading.is_empty());
    }

    #[test]
    fn entry_ids_order_as_redis_does() {
        let a = EntryId::parse("1700000000000-5").unwrap();
        let b = EntryId::parse("1700000000000-12").unwrap();
        let c = EntryId::parse("1700000000001-0").unwrap();
        assert!(a < b && b < c);
        assert_eq!(a.next().to_string(), "1700000000000-6");
        assert_eq!(EntryId::parse("x-1"), None);
        assert_eq!(EntryId::parse("17"), None);
    }
}
