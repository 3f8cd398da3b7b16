//! The distributed crawl (`crawler worker`): partitions of the web by host, each a store of
//! its own, owned by one worker at a time, with Redis coordinating (and holding no URL).
//!
//! - `worker`: the worker's loop, [`run_worker`] (taking and letting go of partitions,
//!   renewing leases, knowing when the crawl is done); `held`: one partition held, its store
//!   opened (restored from its newest backup when that is newer) under its lease and its
//!   crawl running.
//! - `settings`: the crawl's partition count and scope, set once in Redis (and again should
//!   Redis lose them).
//! - `lease`: leases on partitions with an epoch, and the fence each store checks.
//! - `members`: the heartbeat set, with each worker's reach and each partition's home;
//!   `reach`: where a worker can open stores (its data and backup directories' ids);
//!   `shares`: each worker's share, partitions kept within the workers that reach their
//!   stores.
//! - `links`: links across partitions through one stream per partition.
//! - `ip_gate`: per-address gaps across workers on Redis's clock.
//! - `progress`: partitions' idle states, and the crawl's end.
//! - `figures`: a worker's monitoring line; `status`: `crawler status --redis`.
//! - `connection`: the connection to Redis, its deadlines, and the count of commands sent.
//! - every key's name: `shared::partition::redis_keys::crawl`, beside the index exchange's.
//!
//! The crawl loop's side (taking links in, sending its parcels) is `crawl/partition.rs` and
//! `crawl/parcel_send.rs` (and `crawl/partition_backups.rs` with `--backup`); the store's is
//! `store/partition.rs` (outbox, fence), `store/parcels.rs` (parcels kept until confirmed,
//! marks) and `store/backup.rs` (backups, restore).

mod connection;
mod figures;
mod held;
mod ip_gate;
mod lease;
mod links;
mod members;
mod progress;
mod reach;
mod settings;
mod shares;
pub mod status;
mod worker;

pub use worker::{Backups, WorkerOptions, WorkerSummary, run as run_worker};
