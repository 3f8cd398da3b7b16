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
//!    there: [`IndexParcel`](parcel::IndexParcel)s of contributions (source page URL, source
//!    document identity, PageRank share, target URLs and anchors), one `XADD` each, pipelined;
//!    then marks its partitions sent.
//! 3. It waits until every partition of the crawl is sent, reads its partitions' streams
//!    whole (`XRANGE`), deletes them and marks them read ([`Round::finish`]); the last
//!    machine deletes the round's keys.
//! 4. The link graph is built from the local outlinks and the arrived contributions, merged
//!    in source URL order (see [`LinkGraph`](crate::linkgraph::LinkGraph)).
//!
//! Keys: [`keys`]. The connection: [`connection`], deadlines on every answer.

mod connection;
mod keys;
mod parcel;
mod round;
#[cfg(test)]
mod test_redis;

use std::collections::BTreeMap;
use std::time::Duration;

use redis::streams::StreamRangeReply;
use shared::partition::{PartitionId, Partitions};
use shared::record::Record;
use tracing::info;

use crate::Error;
use crate::linkgraph::Contribution;
use crate::linkgraph::outgoing::Outgoing;
use connection::Redis;
use parcel::{IndexParcel, parcels};
use round::Round;

/// How long a round may take by default: every machine must have joined and sent by then.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
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
            let count: Option<u32> =
                redis.query(redis::cmd("HGET").arg(keys::CRAWL).arg("partitions"))?;
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
    info!(round = round.number, %machine, partitions = local.len(), "joined the index exchange");
    Ok(Exchanging {
        redis,
        round,
        partitions,
    })
}

impl Exchanging {
    /// The crawl's partitions.
    pub(crate) fn partitions(&self) -> Partitions {
        self.partitions
    }

    /// Sends every contribution to its partition's stream, then marks this machine's
    /// partitions sent.
    pub(crate) fn send(&mut self, outgoing: &Outgoing) -> Result<(), Error> {
        let life = self.round.key_life().as_millis() as u64;
        let mut all: Vec<(String, IndexParcel)> = Vec::new();
        for (&p, contributions) in &outgoing.by_partition {
            let key = keys::links(self.round.number, PartitionId::new(p));
            all.extend(parcels(contributions).into_iter().map(|c| (key.clone(), c)));
        }
        let parcels_sent = all.len();
        for chunk in all.chunks(PIPELINE) {
            let mut pipe = redis::pipe();
            for (key, parcel) in chunk {
                pipe.cmd("XADD")
                    .arg(key)
                    .arg("*")
                    .arg("p")
                    .arg(parcel.encode())
                    .ignore();
                pipe.cmd("PEXPIRE").arg(key).arg(life).ignore();
            }
            self.redis.pipe::<()>(&pipe, 2 * chunk.len())?;
        }
        self.round.sent(&mut self.redis)?;
        info!(
            round = self.round.number,
            links = outgoing.links(),
            parcels = parcels_sent,
            "contributions sent"
        );
        Ok(())
    }

    /// Waits for every partition to be sent, then reads this machine's streams whole and
    /// deletes them: every arrived source, by URL (a source's links in several parcels
    /// joined).
    pub(crate) fn receive(mut self) -> Result<BTreeMap<String, Contribution>, Error> {
        self.round.wait_for_all(&mut self.redis)?;
        let mut arrived: BTreeMap<String, Contribution> = BTreeMap::new();
        let mut parcels_read = 0;
        for &p in self.round.local() {
            let key = keys::links(self.round.number, p);
            let mut start = "-".to_string();
            loop {
                let reply: StreamRangeReply = self.redis.query(
                    redis::cmd("XRANGE")
                        .arg(&key)
                        .arg(&start)
                        .arg("+")
                        .arg("COUNT")
                        .arg(READ_COUNT),
                )?;
                for entry in &reply.ids {
                    let bytes: Vec<u8> = entry.get("p").unwrap_or_default();
                    let parcel = IndexParcel::decode(&bytes)?;
                    parcels_read += 1;
                    for source in parcel.sources {
                        match arrived.get_mut(&source.source) {
                            Some(known) => known.links.extend(source.links),
                            None => {
                                arrived.insert(source.source.clone(), source);
                            }
                        }
                    }
                }
                match reply.ids.last() {
                    Some(last) if reply.ids.len() == READ_COUNT => start = format!("({}", last.id),
                    _ => break,
                }
            }
        }
        let done = self.round.finish(&mut self.redis)?;
        info!(
            round = self.round.number,
            sources = arrived.len(),
            parcels = parcels_read,
            round_done = done,
            redis_commands = self.redis.commands(),
            "contributions read"
        );
        Ok(arrived)
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
