//! The names of the index exchange's keys in Redis, in one place. They sit beside the crawl's
//! (`sift:` ...; see the crawler's `cluster/keys.rs`) under `sift:index:`, one round's keys
//! under its number N.
//!
//! | key | type | what |
//! |---|---|---|
//! | `sift:crawl` | hash | the crawl's (read only): `partitions` (P), when no store is stamped |
//! | `sift:index:round` | hash | the last round: `number` (N), `partitions` (P), `expires` (ms, Redis's clock: when a join no longer joins it), `done` (`1` once every partition's stream was read) |
//! | `sift:index:N:announced` | hash | partition (`p-NNN`) -> the machine that holds it this round |
//! | `sift:index:N:sent:K` | set | partitions whose machine has sent all it sends in step K (0: contributions, 1 and on: shares) |
//! | `sift:index:N:read` | set | partitions whose machine has read its streams (and deleted them) |
//! | `sift:index:N:links:p-NNN` | stream | contributions to the partition ([`IndexParcel`](super::parcel::IndexParcel), field `p`), step 0 |
//! | `sift:index:N:shares:K:p-NNN` | stream | PageRank shares sent to the partition again in step K ([`ShareParcel`](super::parcel::ShareParcel), field `p`) |
//!
//! Every key of a round expires twice the round's deadline after it was written, so a round
//! a machine abandoned leaves nothing for long; a round every machine finished is deleted
//! at once.

use shared::partition::PartitionId;

/// The crawl's settings, written by its workers.
pub(crate) const CRAWL: &str = "sift:crawl";
/// The last round's hash.
pub(crate) const ROUND: &str = "sift:index:round";

/// Round `n`'s prefix (`sift:index:N:`); the scripts build the round's keys from it.
pub(crate) fn prefix(n: u64) -> String {
    format!("sift:index:{n}:")
}

/// Round `n`'s announcements.
pub(crate) fn announced(n: u64) -> String {
    format!("{}announced", prefix(n))
}

/// Round `n`'s partitions sent in step `k`.
pub(crate) fn sent(n: u64, k: u32) -> String {
    format!("{}sent:{k}", prefix(n))
}

/// Partition `p`'s stream of shares in step `k` of round `n`.
pub(crate) fn shares(n: u64, k: u32, p: PartitionId) -> String {
    format!("{}shares:{k}:{p}", prefix(n))
}

/// Partition `p`'s stream of contributions in round `n`.
pub(crate) fn links(n: u64, p: PartitionId) -> String {
    format!("{}links:{p}", prefix(n))
}
