//! The names of every key a distributed crawl and its index exchange keep in Redis, in one
//! place: the crawler's workers and the indexer's machines both read `sift:crawl`, and a
//! Redis database holds one crawl. All keys start with `sift:`.
//!
//! The crawl's ([`crawl`]):
//!
//! | key | type | what |
//! |---|---|---|
//! | `sift:crawl` | hash | `partitions` (P) and `scope` (URL prefixes, one a line), set once |
//! | `sift:lease:p-NNN` | string, expires | `WORKER EPOCH` of the worker that owns the partition |
//! | `sift:epoch:p-NNN` | counter | the partition's last lease epoch |
//! | `sift:workers` | sorted set | live workers, scored by when their heartbeat runs out (ms, Redis's clock) |
//! | `sift:reaches` | hash | per live worker: the ids of its data directory and backup directory (`DATA[ BACKUPS]`), where it can open stores |
//! | `sift:homes` | hash | per partition (`p-NNN`): the reach of the worker that last took its lease, where its store lives |
//! | `sift:links:p-NNN` | stream, group `owners` | links sent to the partition ([`crate::record::LinkParcel`]) |
//! | `sift:confirmed:p-NNN` | hash | per target partition (`p-MMM`): every parcel p-NNN sent it up to this number is applied there |
//! | `sift:instance` | string | a token the first sender writes into a Redis without one: another token than before says Redis lost its data (and parcels sent before may be lost) |
//! | `sift:backups` | hash | per partition: its newest backup (`crawler worker --backup`), JSON of its lease epoch and time (ms) |
//! | `sift:idle` | hash | per partition: `1 ID` when its owner is idle having applied its stream to `ID`, else `0` |
//! | `sift:figures:WORKER` | string, expires | the worker's last monitoring line (JSON) |
//! | `sift:ip:ADDRESS` | string, expires | when the next request to the address may go (µs, Redis's clock) |
//!
//! The index exchange's ([`index`]), one round's keys under its number N:
//!
//! | key | type | what |
//! |---|---|---|
//! | `sift:crawl` | hash | the crawl's (read only): `partitions` (P), when no store is stamped |
//! | `sift:index:round` | hash | the last round: `number` (N), `partitions` (P), `expires` (ms, Redis's clock: when a join no longer joins it), `done` (`1` once every partition's stream was read) |
//! | `sift:index:N:announced` | hash | partition (`p-NNN`) -> the machine that holds it this round |
//! | `sift:index:N:sent:K` | set | partitions whose machine has sent all it sends in step K (0: contributions and their first shares, 1 and on: shares again) |
//! | `sift:index:N:alive:MACHINE` | string, expires | the machine's heartbeat in round N, written every second, expiring after 3 s (deleted when its build ends) |
//! | `sift:index:N:read` | set | partitions whose machine has read its streams (and deleted them) |
//! | `sift:index:N:links:p-NNN` | stream | contributions to the partition (the indexer's `IndexParcel`, field `p`), step 0 |
//! | `sift:index:N:shares:K:p-NNN` | stream | PageRank shares of its senders in step K (0: the first, then again; the indexer's `ShareParcel`, field `p`) |
//!
//! Every key of a round expires twice the round's deadline after it was written, so a round
//! a machine abandoned leaves nothing for long; a round every machine finished is deleted
//! at once.

/// The crawl's keys (`crawler worker`, `crawler status --redis`).
pub mod crawl {
    use crate::partition::PartitionId;

    /// The key of the crawl's settings (a hash of [`CRAWL_PARTITIONS`] and [`CRAWL_SCOPE`]),
    /// set once by the first worker and read by the indexer's exchange.
    pub const CRAWL: &str = "sift:crawl";
    /// [`CRAWL`]'s field of the partition count P.
    pub const CRAWL_PARTITIONS: &str = "partitions";
    /// [`CRAWL`]'s field of the scope: URL prefixes, one a line.
    pub const CRAWL_SCOPE: &str = "scope";
    /// The live workers.
    pub const WORKERS: &str = "sift:workers";
    /// Each live worker's reach: the ids of the directories it opens stores from.
    pub const REACHES: &str = "sift:reaches";
    /// Each partition's home: the reach of the worker that last took its lease.
    pub const HOMES: &str = "sift:homes";
    /// The token of this Redis's data: written by the first sender that finds none, so a
    /// Redis that lost its data (a restart without it, a `FLUSHALL`) has another.
    pub const INSTANCE: &str = "sift:instance";
    /// Each partition's newest backup.
    pub const BACKUPS: &str = "sift:backups";
    /// The partitions' idle states.
    pub const IDLE: &str = "sift:idle";
    /// The consumer group of every partition's stream.
    pub const GROUP: &str = "owners";
    /// The prefix of the streams' keys (then `p-NNN`).
    pub const LINKS_PREFIX: &str = "sift:links:";
    /// The prefix of the workers' figures (then the worker's name).
    pub const FIGURES_PREFIX: &str = "sift:figures:";
    /// Each partition's last figures (a hash of `p-NNN` to a JSON object of its pages
    /// stored and frontier), written by its holder with its own figures and when it
    /// lets the partition go, kept after the workers are gone.
    pub const PARTITION_FIGURES: &str = "sift:partition-figures";

    /// A partition's lease.
    pub fn lease(p: PartitionId) -> String {
        format!("sift:lease:{p}")
    }

    /// A partition's epoch counter.
    pub fn epoch(p: PartitionId) -> String {
        format!("sift:epoch:{p}")
    }

    /// A partition's stream of links.
    pub fn links(p: PartitionId) -> String {
        format!("{LINKS_PREFIX}{p}")
    }

    /// The parcels of links partition `source` sent that their targets applied (a hash of
    /// target `p-NNN` to a parcel number).
    pub fn confirmed(source: PartitionId) -> String {
        format!("sift:confirmed:{source}")
    }

    /// A worker's figures.
    pub fn figures(worker: &str) -> String {
        format!("{FIGURES_PREFIX}{worker}")
    }

    /// The next send time of an IP address.
    pub fn ip(address: std::net::IpAddr) -> String {
        format!("sift:ip:{address}")
    }
}

/// The index exchange's keys (`indexer build --redis`).
pub mod index {
    use crate::partition::PartitionId;

    pub use super::crawl::{CRAWL, CRAWL_PARTITIONS};

    /// The last round's hash.
    pub const ROUND: &str = "sift:index:round";

    /// Round `n`'s prefix (`sift:index:N:`); the scripts build the round's keys from it.
    pub fn prefix(n: u64) -> String {
        format!("sift:index:{n}:")
    }

    /// Round `n`'s announcements.
    pub fn announced(n: u64) -> String {
        format!("{}announced", prefix(n))
    }

    /// A machine's heartbeat in round `n`.
    pub fn alive(n: u64, machine: &str) -> String {
        format!("{}alive:{machine}", prefix(n))
    }

    /// Round `n`'s partitions sent in step `k`.
    pub fn sent(n: u64, k: u32) -> String {
        format!("{}sent:{k}", prefix(n))
    }

    /// Partition `p`'s stream of shares in step `k` of round `n`.
    pub fn shares(n: u64, k: u32, p: PartitionId) -> String {
        format!("{}shares:{k}:{p}", prefix(n))
    }

    /// Partition `p`'s stream of contributions in round `n`.
    pub fn links(n: u64, p: PartitionId) -> String {
        format!("{}links:{p}", prefix(n))
    }
}
