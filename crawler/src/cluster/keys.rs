//! The names of the crawl's keys in Redis, in one place. All start with `sift:`; a Redis
//! database holds one crawl.
//!
//! | key | type | what |
//! |---|---|---|
//! | `sift:crawl` | hash | `partitions` (P) and `scope` (URL prefixes, one a line), set once |
//! | `sift:lease:p-NNN` | string, expires | `WORKER EPOCH` of the worker that owns the partition |
//! | `sift:epoch:p-NNN` | counter | the partition's last lease epoch |
//! | `sift:workers` | sorted set | live workers, scored by when their heartbeat runs out (ms, Redis's clock) |
//! | `sift:links:p-NNN` | stream, group `owners` | links sent to the partition ([`shared::record::LinkParcel`]) |
//! | `sift:idle` | hash | per partition: `1 ID` when its owner is idle having applied its stream to `ID`, else `0` |
//! | `sift:figures:WORKER` | string, expires | the worker's last monitoring line (JSON) |
//! | `sift:ip:ADDRESS` | string, expires | when the next request to the address may go (µs, Redis's clock) |

use shared::partition::PartitionId;

/// The key of the crawl's settings.
pub(crate) const CRAWL: &str = "sift:crawl";
/// The live workers.
pub(crate) const WORKERS: &str = "sift:workers";
/// The partitions' idle states.
pub(crate) const IDLE: &str = "sift:idle";
/// The consumer group of every partition's stream.
pub(crate) const GROUP: &str = "owners";
/// The prefix of the streams' keys (then `p-NNN`).
pub(crate) const LINKS_PREFIX: &str = "sift:links:";
/// The prefix of the workers' figures (then the worker's name).
pub(crate) const FIGURES_PREFIX: &str = "sift:figures:";

/// A partition's lease.
pub(crate) fn lease(p: PartitionId) -> String {
    format!("sift:lease:{p}")
}

/// A partition's epoch counter.
pub(crate) fn epoch(p: PartitionId) -> String {
    format!("sift:epoch:{p}")
}

/// A partition's stream of links.
pub(crate) fn links(p: PartitionId) -> String {
    format!("{LINKS_PREFIX}{p}")
}

/// A worker's figures.
pub(crate) fn figures(worker: &str) -> String {
    format!("{FIGURES_PREFIX}{worker}")
}

/// The next send time of an IP address.
pub(crate) fn ip(address: std::net::IpAddr) -> String {
    format!("sift:ip:{address}")
}
