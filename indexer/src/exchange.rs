//! The index exchange: link signals across machines, when a crawl's partitions are indexed
//! on several (`indexer build --redis URL`).
//!
//! Each machine builds the shards of the partitions it holds. Its plan knows only its own
//! pages, so what other machines' pages say about its documents has to come to it:
//!
//! 1. [`round`]: the machine joins the round of the crawl's Redis ([`Round::join`]),
//!    announcing its partitions.
//! 2. After its plan, it reads its outlinks once ([`outgoing`](crate::linkgraph::outgoing))
//!    and, as it reads them, sends to the stream of each partition held elsewhere the links
//!    its pages make there: [`IndexParcel`]s of contributions (source page URL, source
//!    document identity, target URLs and anchors), one `XADD` each, pipelined, whenever
//!    the contributions buffered reach the budget ([`Exchange::budget`]). Then each source's
//!    PageRank share ([`ShareParcel`]s, step 0's) and it marks its partitions sent.
//! 3. It waits until every partition of the crawl is sent (a machine whose [`heartbeat`]
//!    ran out meanwhile is named at once), reads its partitions' streams in batches
//!    (`XRANGE ... COUNT`), deleting each once read: the contributions go to disk within the
//!    budget ([`Arrived`], sorted runs in `DATA/exchange-spill`, removed when the build
//!    ends), the shares stay as numbers. Then [`SHARE_STEPS`] steps send the shares again,
//!    and the round is finished ([`Round::finish`]); the last machine deletes the round's
//!    keys.
//! 4. The link graph is built from the local outlinks and the arrived contributions, read
//!    back merged in source URL order (see [`LinkGraph`](crate::linkgraph::LinkGraph)).
//!
//! **Memory.** What the exchange holds of URLs and anchors is bounded by the budget on each
//! side (sending: the contributions buffered, then cut into parcels, about twice it at
//! most; receiving: one batch read and the spill's buffer). What grows with the corpus are
//! numbers: per remote source sending here, its identity and share (16 bytes, and a table
//! entry); per distinct link arriving, 8 bytes; per source sending from here, 16 bytes per
//! partition it sends to and 16 per distinct remote target; and, as on one machine, the
//! plan and the link graph's numbers (see [`crate::linkgraph`]: the anchor texts of what
//! arrived are bounded there, by the build's anchor budget, as the local ones).
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
use std::path::Path;
use std::time::Duration;

use redis::streams::StreamRangeReply;
use shared::partition::redis_keys::index as keys;
use shared::partition::{PartitionId, Partitions};
use shared::record::Record;
use tracing::info;

use crate::Error;
use crate::linkgraph::Contribution;
use crate::linkgraph::arrived::Arrived;
use crate::linkgraph::outgoing::{Outgoing, Sending, Shares};
use crate::linkgraph::spill::size_of;
use crate::summary::ExchangeSummary;
use connection::Redis;
use heartbeat::Heartbeat;
use parcel::{IndexParcel, ShareParcel, parcels};
use round::Round;
use shared::docplan::DocPlan;

/// How long a round may take by default: every machine must have joined and sent by then.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(600);
/// Bytes of contributions (URLs and anchors, estimated) a machine buffers by default before
/// it sends them, and before it spills what arrived to disk.
pub const DEFAULT_BUDGET: usize = 16 << 20;
/// Steps after the contributions' in which the senders' PageRank shares are sent again
/// (each a barrier): two bring every level within 1 of one machine's on the lattices of
/// `linkgraph/split_tests.rs`, where one exchange alone left some 7 levels off.
pub const SHARE_STEPS: u32 = 2;
/// The directory under a build's data directory where arrived contributions are spilled.
pub(crate) const SPILL_DIR: &str = "exchange-spill";
/// Shares sent at most in one parcel.
const SHARES_PER_PARCEL: usize = 4096;
/// Stream entries read at once (parcels of at most `PARCEL_LINKS` links each).
const READ_COUNT: usize = 32;
/// Parcels sent in one pipeline.
const PIPELINE: usize = 64;

/// Where and how long a build exchanges link signals with the other machines of a crawl.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The crawl's Redis (`redis://HOST:PORT/DB` or `unix:///PATH`).
    pub redis: String,
    /// How long the round may take before the build fails naming the missing partitions.
    pub deadline: Duration,
    /// Bytes of contributions buffered in memory, sending and receiving each (see the
    /// module's docs): [`DEFAULT_BUDGET`].
    pub budget: usize,
}

impl Exchange {
    /// Through the Redis at `url`, within [`DEFAULT_DEADLINE`] and [`DEFAULT_BUDGET`].
    pub fn new(url: &str) -> Self {
        Self {
            redis: url.to_string(),
            deadline: DEFAULT_DEADLINE,
            budget: DEFAULT_BUDGET,
        }
    }
}

/// A machine in a round: its connection and its place.
pub(crate) struct Exchanging {
    redis: Redis,
    round: Round,
    partitions: Partitions,
    budget: usize,
    /// The most bytes of contributions the sender buffered at once.
    most_sending: usize,
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
        budget: exchange.budget,
        most_sending: 0,
        _heartbeat: heartbeat,
    })
}

impl Exchanging {
    /// The crawl's partitions.
    pub(crate) fn partitions(&self) -> Partitions {
        self.partitions
    }

    /// Step 0, while the outlinks are read: sends contributions to their partitions' streams
    /// whenever those buffered reach the budget ([`Sender::flush`] sends the rest).
    pub(crate) fn sender(&mut self) -> Sender<'_> {
        Sender {
            exchanging: self,
            pending: BTreeMap::new(),
            bytes: 0,
        }
    }

    /// The rest of the round, once `outgoing`'s contributions are sent: step 0's shares,
    /// then everything that arrived read in batches into an [`Arrived`] spilling to `spill`
    /// (an existing directory), then [`SHARE_STEPS`] steps in which each machine computes
    /// its PageRank again with what arrived and sends its senders' new shares (one
    /// `(identity, share)` per source and partition), so the rank flowing between machines
    /// settles as on one machine. Then the round is finished: this machine's streams gone,
    /// the round's keys deleted by the last machine. What arrived, and what the round moved.
    pub(crate) fn exchange(
        mut self,
        plan: &DocPlan,
        outgoing: &Outgoing,
        spill: &Path,
    ) -> Result<(Arrived, ExchangeSummary), Error> {
        self.send_shares(0, &outgoing.first_shares(plan))?;
        info!(
            round = self.round.number,
            contributions = outgoing.contributions,
            links = outgoing.links,
            "contributions sent"
        );
        self.round.wait_for_all(&mut self.redis, 0)?;
        let mut arrived = Arrived::new(spill, self.budget);
        let mut parcels_read = 0;
        for p in self.round.local().to_vec() {
            parcels_read += self.take_stream(&keys::links(self.round.number, p), |bytes| {
                for contribution in IndexParcel::decode(bytes)?.sources {
                    arrived.add(plan, contribution)?;
                }
                Ok(())
            })?;
        }
        self.take_shares(0, &mut arrived)?;
        let (contributions, bytes, runs) = arrived.counts();
        let summary = ExchangeSummary {
            sent: outgoing.contributions,
            arrived: contributions,
            arrived_bytes: bytes,
            spilled_runs: runs as u64,
            most_held: self.most_sending.max(arrived.most_held()) as u64,
        };
        info!(
            round = self.round.number,
            contributions,
            bytes,
            parcels = parcels_read,
            spilled_runs = runs,
            "contributions read"
        );
        for step in 1..=SHARE_STEPS {
            let refreshed = outgoing.refreshed_shares(plan, &mut arrived);
            self.send_shares(step, &refreshed)?;
            self.take_shares(step, &mut arrived)?;
        }
        let done = self.round.finish(&mut self.redis, SHARE_STEPS)?;
        info!(
            round = self.round.number,
            steps = SHARE_STEPS,
            round_done = done,
            redis_commands = self.redis.commands(),
            "exchange done"
        );
        Ok((arrived, summary))
    }

    /// Sends `shares` to their partitions' streams of `step`, then marks this machine's
    /// partitions sent in it.
    fn send_shares(&mut self, step: u32, shares: &Shares) -> Result<(), Error> {
        let mut all: Vec<(String, Vec<u8>)> = Vec::new();
        for (&p, shares) in shares {
            let key = keys::shares(self.round.number, step, PartitionId::new(p));
            for chunk in shares.chunks(SHARES_PER_PARCEL) {
                let parcel = ShareParcel {
                    shares: chunk.to_vec(),
                };
                all.push((key.clone(), parcel.encode()));
            }
        }
        self.add(&all)?;
        self.round.sent(&mut self.redis, step)
    }

    /// Waits for every partition to be sent in `step`, then reads this machine's streams of
    /// the step's shares into `arrived`.
    fn take_shares(&mut self, step: u32, arrived: &mut Arrived) -> Result<(), Error> {
        self.round.wait_for_all(&mut self.redis, step)?;
        for p in self.round.local().to_vec() {
            let key = keys::shares(self.round.number, step, p);
            self.take_stream(&key, |bytes| {
                for (identity, share) in ShareParcel::decode(bytes)?.shares {
                    arrived.set_share(identity, share);
                }
                Ok(())
            })?;
        }
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

    /// Hands every entry of a stream to `each` (every sender is done with it: the step's
    /// barrier passed), [`READ_COUNT`] at a time, then deletes the stream. The entries read.
    fn take_stream(
        &mut self,
        key: &str,
        mut each: impl FnMut(&[u8]) -> Result<(), Error>,
    ) -> Result<usize, Error> {
        let mut read = 0;
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
                each(&entry.get::<Vec<u8>>("p").unwrap_or_default())?;
            }
            read += reply.ids.len();
            match reply.ids.last() {
                Some(last) if reply.ids.len() == READ_COUNT => start = format!("({}", last.id),
                _ => break,
            }
        }
        self.redis.query::<()>(redis::cmd("DEL").arg(key))?;
        Ok(read)
    }
}

/// Step 0's contributions on their way: buffered per partition, in source order, and sent
/// as parcels whenever their estimated bytes reach the budget.
pub(crate) struct Sender<'a> {
    exchanging: &'a mut Exchanging,
    pending: BTreeMap<u32, Vec<Contribution>>,
    bytes: usize,
}

impl Sender<'_> {
    /// Sends every contribution buffered.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        let mut batch: Vec<(String, Vec<u8>)> = Vec::new();
        for (p, contributions) in std::mem::take(&mut self.pending) {
            let key = keys::links(self.exchanging.round.number, PartitionId::new(p));
            for parcel in parcels(&contributions) {
                batch.push((key.clone(), parcel.encode()));
                if batch.len() == PIPELINE {
                    self.exchanging.add(&std::mem::take(&mut batch))?;
                }
            }
        }
        self.exchanging.add(&batch)?;
        self.bytes = 0;
        Ok(())
    }
}

impl Sending for Sender<'_> {
    fn send(&mut self, partition: u32, contribution: Contribution) -> Result<(), Error> {
        self.bytes += size_of(&contribution);
        let most = &mut self.exchanging.most_sending;
        *most = (*most).max(self.bytes);
        self.pending
            .entry(partition)
            .or_default()
            .push(contribution);
        if self.bytes >= self.exchanging.budget {
            self.flush()?;
        }
        Ok(())
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
