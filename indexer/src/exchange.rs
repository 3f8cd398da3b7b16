//! The index exchange: link signals across machines, when a crawl's partitions are indexed
//! on several (`indexer build --redis URL`).
//!
//! Each machine builds the shards of the partitions it holds. Its plan knows only its own
//! pages, so what other machines' pages say about its documents has to come to it:
//!
//! 1. [`round`]: the machine joins the round of the crawl's Redis ([`Round::join`]),
//!    announcing its partitions.
//! 2. After its plan, it reads its outlinks once ([`outgoing`](crate::linkgraph::outgoing))
//!    and sends, to the stream of each partition held elsewhere, the links its pages make
//!    there: [`IndexParcel`]s of contributions (source page URL, source
//!    document identity, PageRank share, target URLs and anchors), one `XADD` each, pipelined;
//!    then marks its partitions sent.
//! 3. It waits until every partition of the crawl is sent (a machine whose [`heartbeat`]
//!    ran out meanwhile is named at once), reads its partitions' streams
//!    whole (`XRANGE`), deletes them and marks them read ([`Round::finish`]); the last
//!    machine deletes the round's keys.
//! 4. The link graph is built from the local outlinks and the arrived contributions, merged
//!    in source URL order (see [`LinkGraph`](crate::linkgraph::LinkGraph)).
//!
//! Keys: `shared::partition::redis_keys::index`. What is sent: [`parcel`], versioned. The
//! connection: [`connection`], deadlines on every answer. Tests run against a
//! `redis-server` of their own (`test_redis`).

mod connection;
mod heartbeat;
mod parcel;
mod round;
#[cfg(test)]
mod test_redis;

use std::collections::BTreeMap;
use std::time::Duration;

use redis::streams::StreamRangeReply;
use shared::partition::redis_keys::index as keys;
use shared::partition::{PartitionId, Partitions};
use shared::record::Record;
use tracing::info;

use crate::Error;
use crate::linkgraph::Contribution;
use crate::linkgraph::outgoing::{Outgoing, apply_shares};
use connection::Redis;
use heartbeat::Heartbeat;
use parcel::{IndexParcel, ShareParcel, parcels};
use round::Round;
use shared::docplan::DocPlan;

/// How long a round may take by default: every machine must have joined and sent by then.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
/// Steps after the contributions' in which the senders' PageRank shares are sent again
/// (each a barrier): two bring every level within 1 of one machine's on the lattices of
/// `linkgraph/split_tests.rs`, where one exchange alone left some 7 levels off.
pub const SHARE_STEPS: u32 = 2;
/// Shares sent at most in one parcel.
const SHARES_PER_PARCEL: usize = 4096;
/// Stream entries read at once.
const READ_COUNT: usize = 256;
/// Parcels sent in one pipeline.
const PIPELINE: usize = 64;

/// Where and how long a build exchanges link signals with the other machines of a crawl.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The crawl's Redis (`redis://HOST:PORT/DB` or `unix:///PATH`).
    pub redis: String,
    /// How long the round may take before the build fails naming the missing partitions.
    pub deadline: Duration,
}

impl Exchange {
    /// Through the Redis at `url`, within [`DEFAULT_DEADLINE`].
    pub fn new(url: &str) -> Self {
        Self {
            redis: url.to_string(),
            deadline: DEFAULT_DEADLINE,
        }
    }
}

/// A machine in a round: its connection and its place.
pub(crate) struct Exchanging {
    redis: Redis,
    round: Round,
    partitions: Partitions,
    /// The machine's heartbeat in the round, for as long as it takes part.
    _heartbeat: Heartbeat,
}

/// Connects and joins a round with the partitions `local`. The crawl's partition count is
/// `crawl` (from the stores' stamps), else the one the crawl's workers wrote in Redis
/// (`sift:crawl`, field `partitions`).
pub(crate) fn join(
    exchange: &Exchange,
    crawl: Option<Partitions>,
    local: &[PartitionId],
) -> Result<Exchanging, Error> {
    let mut redis = Redis::open(&exchange.redis)?;
    let partitions = match crawl {
        Some(partitions) => partitions,
        None => {
            let count: Option<u32> = redis.query(
                redis::cmd("HGET")
                    .arg(keys::CRAWL)
                    .arg(keys::CRAWL_PARTITIONS),
            )?;
            count.and_then(Partitions::new).ok_or_else(|| {
                Error::Partitions(
                    "cannot tell the crawl's partition count: no store is stamped and Redis has \
                     no `sift:crawl` partitions"
                        .to_string(),
                )
            })?
        }
    };
    if let Some(p) = local.iter().find(|p| p.get() >= partitions.count()) {
        return Err(Error::Partitions(format!(
            "{p} is not a partition of a crawl of {} partitions",
            partitions.count()
        )));
    }
    let machine = machine_name();
    let round = Round::join(&mut redis, &machine, partitions, local, exchange.deadline)?;
    let heartbeat = Heartbeat::start(&exchange.redis, keys::alive(round.number, &machine))?;
    info!(round = round.number, %machine, partitions = local.len(), "joined the index exchange");
    Ok(Exchanging {
        redis,
        round,
        partitions,
        _heartbeat: heartbeat,
    })
}

impl Exchanging {
    /// The crawl's partitions.
    pub(crate) fn partitions(&self) -> Partitions {
        self.partitions
    }

    /// Step 0: sends every contribution to its partition's stream, then marks this
    /// machine's partitions sent.
    pub(crate) fn send(&mut self, outgoing: &Outgoing) -> Result<(), Error> {
        let mut all: Vec<(String, Vec<u8>)> = Vec::new();
        for (&p, contributions) in &outgoing.by_partition {
            let key = keys::links(self.round.number, PartitionId::new(p));
            let encoded = parcels(contributions).into_iter().map(|c| c.encode());
            all.extend(encoded.map(|bytes| (key.clone(), bytes)));
        }
        self.add(&all)?;
        self.round.sent(&mut self.redis, 0)?;
        info!(
            round = self.round.number,
            links = outgoing.links(),
            parcels = all.len(),
            "contributions sent"
        );
        Ok(())
    }

    /// Step 0: waits for every partition to be sent, then reads this machine's streams
    /// whole and deletes them: every arrived source, by URL (a source's links in several
    /// parcels joined).
    pub(crate) fn receive(&mut self) -> Result<BTreeMap<String, Contribution>, Error> {
        self.round.wait_for_all(&mut self.redis, 0)?;
        let mut arrived: BTreeMap<String, Contribution> = BTreeMap::new();
        let mut parcels_read = 0;
        for p in self.round.local().to_vec() {
            for bytes in self.take_stream(&keys::links(self.round.number, p))? {
                parcels_read += 1;
                for source in IndexParcel::decode(&bytes)?.sources {
                    match arrived.get_mut(&source.source) {
                        Some(known) => known.links.extend(source.links),
                        None => {
                            arrived.insert(source.source.clone(), source);
                        }
                    }
                }
            }
        }
        info!(
            round = self.round.number,
            sources = arrived.len(),
            parcels = parcels_read,
            "contributions read"
        );
        Ok(arrived)
    }

    /// Steps 1 to [`SHARE_STEPS`]: each machine's PageRank again with what arrived, and the
    /// senders' new shares exchanged (one `(identity, share)` per source and partition), so
    /// the rank flowing between machines settles as on one machine. Then the round is
    /// finished: this machine's streams gone, the round's keys deleted by the last machine.
    pub(crate) fn refine(
        mut self,
        plan: &DocPlan,
        outgoing: &Outgoing,
        arrived: &mut BTreeMap<String, Contribution>,
    ) -> Result<(), Error> {
        for step in 1..=SHARE_STEPS {
            let refreshed = outgoing.refreshed_shares(plan, arrived);
            let mut all: Vec<(String, Vec<u8>)> = Vec::new();
            for (&p, shares) in &refreshed {
                let key = keys::shares(self.round.number, step, PartitionId::new(p));
                let shares: Vec<(u64, f64)> = shares.iter().map(|(&i, &s)| (i, s)).collect();
                for chunk in shares.chunks(SHARES_PER_PARCEL) {
                    let parcel = ShareParcel {
                        shares: chunk.to_vec(),
                    };
                    all.push((key.clone(), parcel.encode()));
                }
            }
            self.add(&all)?;
            self.round.sent(&mut self.redis, step)?;
            self.round.wait_for_all(&mut self.redis, step)?;
            let mut shares = BTreeMap::new();
            for p in self.round.local().to_vec() {
                let key = keys::shares(self.round.number, step, p);
                for bytes in self.take_stream(&key)? {
                    shares.extend(ShareParcel::decode(&bytes)?.shares);
                }
            }
            apply_shares(arrived, &shares);
        }
        let done = self.round.finish(&mut self.redis, SHARE_STEPS)?;
        info!(
            round = self.round.number,
            steps = SHARE_STEPS,
            round_done = done,
            redis_commands = self.redis.commands(),
            "exchange done"
        );
        Ok(())
    }

    /// `XADD`s each (stream, parcel), pipelined, each stream set to expire with the round.
    fn add(&mut self, parcels: &[(String, Vec<u8>)]) -> Result<(), Error> {
        let life = self.round.key_life().as_millis() as u64;
        for chunk in parcels.chunks(PIPELINE) {
            let mut pipe = redis::pipe();
            for (key, bytes) in chunk {
                pipe.cmd("XADD")
                    .arg(key)
                    .arg("*")
                    .arg("p")
                    .arg(bytes)
                    .ignore();
                pipe.cmd("PEXPIRE").arg(key).arg(life).ignore();
            }
            self.redis.pipe::<()>(&pipe, 2 * chunk.len())?;
        }
        Ok(())
    }

    /// Every entry of a stream (every sender is done with it: the step's barrier passed),
    /// then the stream deleted.
    fn take_stream(&mut self, key: &str) -> Result<Vec<Vec<u8>>, Error> {
        let mut entries = Vec::new();
        let mut start = "-".to_string();
        loop {
            let reply: StreamRangeReply = self.redis.query(
                redis::cmd("XRANGE")
                    .arg(key)
                    .arg(&start)
                    .arg("+")
                    .arg("COUNT")
                    .arg(READ_COUNT),
            )?;
            for entry in &reply.ids {
                entries.push(entry.get::<Vec<u8>>("p").unwrap_or_default());
            }
            match reply.ids.last() {
                Some(last) if reply.ids.len() == READ_COUNT => start = format!("({}", last.id),
                _ => break,
            }
        }
        self.redis.query::<()>(redis::cmd("DEL").arg(key))?;
        Ok(entries)
    }
}

/// This build's name in the round: host name, process and a clock reading, so two builds
/// (even in one process) are never taken for one.
fn machine_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_string())
        .unwrap_or_else(|_| "machine".to_string());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("{host}:{}:{nanos:08x}", std::process::id())
}
