//! `crawler worker`: one worker of a distributed crawl.
//!
//! Each turn (every [`TICK`]) the worker beats, renews its leases, reaps the partitions whose
//! crawl ended, starts the crawls of those whose store opened (on a blocking thread: a
//! restore copies a whole partition, and the leases are renewed meanwhile), takes free
//! partitions up to its share or lets go of those above it,
//! publishes its partitions' idle states (those that changed, and every second all), and
//! every 5 s its figures and the crawl's settings (should Redis have lost them); when every
//! partition it holds is idle it asks whether the whole crawl is done, and ends when it is. Redis away:
//! nothing changes hands, fetches wait at the address gate, and a lease that cannot be
//! renewed stops its partition's crawl before Redis would let the lease go.

mod starting;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use shared::CanonicalUrl;
use shared::partition::PartitionId;
use shared::store::MemoryBudget;
use tokio::sync::{Semaphore, watch};
use tokio::time::Instant;
use tracing::{info, warn};

use super::connection::Redis;
use super::figures::{partition_line, worker_line};
use super::held::{Ending, Held, Shared};
use super::ip_gate::AddressGate;
use super::lease::{Lease, LeaseTimes, Leases};
use super::links::{self, Readers};
use super::members::Members;
use super::progress::{CrawlProgressBoard, state_value};
use super::reach::Reach;
use super::settings;
use super::shares::{Placement, Placing, Taking};
use crate::crawl::{CrawlOptions, StopReason};
use crate::error::Error;
use crate::fetch::Fetcher;
use crate::kind::Kinds;
use crate::metrics::CrawlMetrics;
use crate::params::ParamStrip;
use crate::render::Renderer;
use service::health::Readiness;
use shared::partition::redis_address::shown;
use shared::partition::redis_keys::crawl as keys;
use starting::Starting;

/// How often the worker looks at its partitions and Redis.
const TICK: Duration = Duration::from_millis(250);
/// How many beats a worker waits before taking partitions of a new crawl (2 s): workers
/// started together, one of them creating the crawl, each take a share.
const GATHER_BEATS: u32 = 8;
/// Lease times a partition's home must go unreached before it is taken over on a fresh
/// store (2 minutes by default).
const TAKEOVER_LEASES: u32 = 4;
/// How often it logs and publishes its figures.
const FIGURES_EVERY: Duration = Duration::from_secs(5);
/// How often it writes every partition's state again, changed or not (a Redis that lost its
/// data has them again within this).
const STATES_EVERY: Duration = Duration::from_secs(1);

/// What a worker runs with.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The crawl's Redis (`redis://HOST:PORT/DB`, `unix:///PATH`).
    pub redis: String,
    /// The crawl's options: `data` holds this machine's partitions
    /// (`DATA/partitions/p-NNN`); seeds and scope create the crawl or add to it.
    pub crawl: CrawlOptions,
    /// Partitions of a crawl this worker creates (default 64); must match an existing one.
    pub partitions: Option<u32>,
    /// How long a lease lasts unrenewed.
    pub lease: Duration,
    /// Where its partitions' crawls and its own work are counted, and its readiness said
    /// (`--metrics-listen`); `None`: nowhere.
    pub metrics: Option<CrawlMetrics>,
    /// Where and how often its partitions are backed up (`--backup`); `None`: never.
    pub backups: Option<Backups>,
}

/// A worker's backups of its partitions (`--backup DIR`).
#[derive(Clone, Debug)]
pub struct Backups {
    /// Each partition's backups go to `DIR/p-NNN`.
    pub dir: std::path::PathBuf,
    /// How often each partition is backed up.
    pub every: Duration,
}

/// What a worker did.
#[derive(Clone, Debug)]
pub struct WorkerSummary {
    /// The worker's name in Redis.
    pub worker: String,
    /// Pages stored in the partitions it held at the end.
    pub pages_stored: u64,
    /// Pages it fetched.
    pub fetched: u64,
    /// Its failed fetches.
    pub errors: u64,
    /// Why it ended.
    pub stop: StopReason,
    /// Redis commands it sent.
    pub redis_commands: u64,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs a worker until the crawl is done, `--max-time` passes or `shutdown` completes.
pub async fn run(
    options: WorkerOptions,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<WorkerSummary, Error> {
    let started = Instant::now();
    let redis = Redis::new(&options.redis)
        .map_err(|e| Error::Cluster(format!("Redis URL {}: {e}", shown(&options.redis))))?;
    let worker = worker_name();
    let config = options.crawl.config.clone();
    let params = ParamStrip::new(&config);
    let seeds = options
        .crawl
        .seeds
        .iter()
        .map(|s| {
            CanonicalUrl::parse(s)
                .map(|url| params.apply(url))
                .map_err(|source| Error::BadUrl {
                    what: "seed",
                    input: s.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scope = settings::crawl_scope(&options.crawl.scope, &seeds)?;
    let settings = settings::join(&redis, options.partitions, scope).await?;
    info!(%worker, partitions = settings.partitions.count(), "joined the crawl");
    settings::seed(&redis, settings.partitions, &seeds).await;

    let kinds = Kinds::new(&config, options.crawl.pdf_child.as_ref());
    // One browser serves all the worker's partitions.
    let renderer = Renderer::new(&config).map_err(|e| Error::Render(e.to_string()))?;
    let metrics = options.metrics.clone().unwrap_or_default();
    if let Some(renderer) = &renderer {
        renderer.count_in(metrics.clone());
    }
    let fetcher = Fetcher::new(&config, kinds)?
        .with_shared_turns(Arc::new(AddressGate::new(redis.clone())))
        .with_metrics(metrics.clone());
    let shared = Shared {
        data: options.crawl.data.clone(),
        partitions: settings.partitions,
        budget: MemoryBudget::new(config.store_cache_bytes, config.store_write_buffer_bytes),
        fetcher,
        renderer,
        slots: Arc::new(Semaphore::new(config.max_in_flight.get())),
        redis: redis.clone(),
        metrics: metrics.clone(),
        backups: options.backups.clone(),
        options: CrawlOptions {
            seeds: Vec::new(),
            scope: settings.scope.clone(),
            max_time: None,
            ..options.crawl.clone()
        },
    };
    let times = LeaseTimes { ttl: options.lease };
    let reach = Reach::of(
        &options.crawl.data,
        options.backups.as_ref().map(|b| b.dir.as_path()),
    )?;
    let mut worker_loop = WorkerLoop {
        leases: Leases::new(redis.clone(), &worker, times),
        members: Members::new(redis.clone()),
        board: CrawlProgressBoard::new(redis.clone()),
        readers: watch::Sender::new(Readers::new()),
        held: BTreeMap::new(),
        starting: BTreeMap::new(),
        waiting: BTreeMap::new(),
        letting_go: Vec::new(),
        totals: Totals::default(),
        worker: worker.clone(),
        reach,
        shared,
        complained: false,
        placing: Placing::new(times.ttl * TAKEOVER_LEASES),
    };
    let reader = tokio::spawn(links::read(
        redis.clone(),
        worker.clone(),
        worker_loop.readers.subscribe(),
    ));
    let deadline = options.crawl.max_time.map(|d| started + d);
    tokio::pin!(shutdown);
    let mut next_renew = Instant::now() + times.renew_every();
    let mut next_figures = Instant::now() + FIGURES_EVERY;
    let mut next_states = Instant::now() + STATES_EVERY;
    let mut beats = 0u32;
    let stop = loop {
        tokio::select! {
            () = &mut shutdown => break StopReason::Shutdown,
            () = tokio::time::sleep(TICK) => {}
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            break StopReason::MaxTime;
        }
        if now >= next_renew {
            worker_loop.renew().await;
            next_renew = now + times.renew_every();
        }
        worker_loop.reap().await;
        worker_loop.started().await;
        let beat = worker_loop.beat(times.ttl).await;
        worker_loop.observe(beat.as_ref().err());
        match beat {
            Ok(beat) => {
                beats += 1;
                // One beat's wait first, so that workers started together see each other
                // before they share; on a new crawl (no partition placed yet), a few: they
                // keep the partitions they take when their disks are their own.
                let gathering = beat.homes.is_empty() && beats < GATHER_BEATS;
                if beats > 1 && !gathering {
                    let placement = Placement::new(&beat.live, &beat.homes);
                    worker_loop.adjust(&placement).await;
                }
            }
            Err(error) => worker_loop.redis_away(&error),
        }
        let all_states = now >= next_states;
        if all_states {
            next_states = now + STATES_EVERY;
        }
        worker_loop.publish_states(all_states).await;
        if now >= next_figures {
            next_figures = now + FIGURES_EVERY;
            worker_loop.figures(&redis).await;
            // A Redis that lost its data has the crawl's settings again, for workers and
            // `crawler status` that read them.
            if let Err(error) = settings::restore(&redis, &settings).await {
                worker_loop.redis_away(&error);
            }
        }
        if worker_loop.all_idle() && beats > 1 {
            match worker_loop.board.done(settings.partitions).await {
                Ok(true) => break StopReason::FrontierDone,
                Ok(false) => {}
                Err(error) => worker_loop.redis_away(&error),
            }
        }
    };
    info!(%worker, ?stop, "worker stopping: its partitions' crawls end");
    // Done: nothing is in flight. Asked to stop, or out of time: as a crawl does, at once.
    let ending = match stop {
        StopReason::FrontierDone => Ending::Drain,
        _ => Ending::Now,
    };
    worker_loop.let_go_of_all(ending).await;
    metrics.worker(0, redis.commands());
    metrics.set_readiness(Readiness::NotReady(format!(
        "the worker stopped ({stop:?})"
    )));
    if let Err(error) = worker_loop.members.leave(&worker).await {
        warn!(%error, "could not leave the workers' set (its beat runs out by itself)");
    }
    reader.abort();
    worker_loop.figures(&redis).await;
    Ok(WorkerSummary {
        worker,
        pages_stored: worker_loop.totals.pages_stored,
        fetched: worker_loop.totals.fetched,
        errors: worker_loop.totals.errors,
        stop,
        redis_commands: redis.commands(),
        elapsed: started.elapsed(),
    })
}

/// Figures of the partitions a worker let go of.
#[derive(Default)]
struct Totals {
    pages_stored: u64,
    fetched: u64,
    errors: u64,
}

struct WorkerLoop {
    leases: Leases,
    members: Members,
    board: CrawlProgressBoard,
    readers: watch::Sender<Readers>,
    held: BTreeMap<PartitionId, Held>,
    /// Leases taken whose store is opening.
    starting: BTreeMap<PartitionId, Starting>,
    /// Leases taken whose store another process still has open.
    waiting: BTreeMap<PartitionId, Lease>,
    /// Partitions whose crawl was asked to stop, released once it has.
    letting_go: Vec<(Held, bool)>,
    totals: Totals,
    worker: String,
    /// Where this worker opens stores.
    reach: Reach,
    shared: Shared,
    /// Whether Redis being away was said (once per outage).
    complained: bool,
    /// What the worker keeps between placements.
    placing: Placing,
}

impl WorkerLoop {
    /// Tells the metrics the leases held and the commands sent, and `/readyz` whether the
    /// worker can crawl: Redis answered its last beat (else `beat_failed`) and it holds a
    /// lease.
    fn observe(&self, beat_failed: Option<&redis::RedisError>) {
        let metrics = &self.shared.metrics;
        metrics.worker(self.held.len(), self.shared.redis.commands());
        metrics.set_readiness(match beat_failed {
            Some(error) => Readiness::NotReady(format!("Redis does not answer: {error}")),
            None if self.held.is_empty() => Readiness::NotReady("no partition lease held".into()),
            None if self.held.len() == 1 => Readiness::Ready("1 partition held".into()),
            None => Readiness::Ready(format!("{} partitions held", self.held.len())),
        });
    }

    fn redis_away(&mut self, error: &redis::RedisError) {
        if !self.complained {
            warn!(redis = self.shared.redis.url(), %error, "Redis does not answer: no partition changes hands; fetches wait");
            self.complained = true;
        }
    }

    /// Renews every lease held; a partition whose lease is lost stops at once.
    async fn renew(&mut self) {
        // A fence that fell (renewals failing for most of a lease, or the worker paused past
        // it): its crawl stops before anything is renewed, so that a renewal finding the
        // lease still this worker's (a Redis that lost it and gave it back) never raises a
        // fence that fell.
        let fallen: Vec<PartitionId> = self
            .held
            .iter()
            .filter(|(_, h)| !h.lease.fence.holds())
            .map(|(&p, _)| p)
            .collect();
        for p in fallen {
            warn!(partition = %p, "lease not renewed in time: its crawl stops");
            self.stop(p, Ending::Now, false);
        }
        // Partitions being let go keep their lease until it is given back (their last
        // backup may take a while).
        let leases: Vec<Lease> = self
            .held
            .values()
            .map(|h| h.lease.clone())
            .chain(self.starting.values().map(|s| s.lease.clone()))
            .chain(self.waiting.values().cloned())
            .chain(
                self.letting_go
                    .iter()
                    .filter(|(held, release)| *release && held.lease.fence.holds())
                    .map(|(held, _)| held.lease.clone()),
            )
            .collect();
        match self.leases.renew(&leases).await {
            Ok(lost) => {
                self.complained = false;
                for p in lost {
                    if self.held.contains_key(&p) || self.waiting.contains_key(&p) {
                        warn!(partition = %p, "lease lost: its crawl stops and writes nothing more");
                    }
                    self.waiting.remove(&p);
                    self.stop(p, Ending::Now, false);
                }
            }
            Err(error) => self.redis_away(&error),
        }
    }

    /// Whether this worker has partition `p` in any state: crawling, opening its store,
    /// waiting for it, or letting it go.
    fn has(&self, p: PartitionId) -> bool {
        self.held.contains_key(&p)
            || self.starting.contains_key(&p)
            || self.waiting.contains_key(&p)
            || self
                .letting_go
                .iter()
                .any(|(held, _)| held.partition() == p)
    }

    /// Ends `p`'s crawl; `release`: give its lease back once it has ended.
    fn stop(&mut self, p: PartitionId, ending: Ending, release: bool) {
        if let Some(mut held) = self.held.remove(&p) {
            held.end(ending);
            self.readers.send_modify(|r| {
                r.remove(&p);
            });
            self.letting_go.push((held, release));
        }
    }

    /// Partitions whose crawl ended: counted, their lease released (when it was let go of)
    /// or dropped.
    async fn reap(&mut self) {
        let ended: Vec<PartitionId> = self
            .held
            .iter()
            .filter(|(_, h)| h.crawl.is_finished())
            .map(|(&p, _)| p)
            .collect();
        for p in ended {
            // A crawl that ended by itself failed (a partition's crawl waits for links).
            self.stop(p, Ending::Now, true);
        }
        let mut still = Vec::new();
        for (held, release) in std::mem::take(&mut self.letting_go) {
            if !held.crawl.is_finished() {
                still.push((held, release));
                continue;
            }
            let p = held.partition();
            let state = held.state.borrow().clone();
            match held.crawl.await {
                Ok(Ok(summary)) => {
                    self.totals.pages_stored += summary.pages_stored;
                    self.totals.fetched += summary.fetched;
                    self.totals.errors += summary.errors;
                    let last = partition_line(summary.pages_stored, summary.frontier_left);
                    self.publish_partition_figures(&[(p, last)]).await;
                }
                Ok(Err(error)) => {
                    warn!(partition = %p, %error, "partition crawl ended");
                    self.totals.fetched += state.progress.fetched;
                }
                Err(error) => warn!(partition = %p, %error, "partition crawl task failed"),
            }
            if release {
                let value = state_value(state.idle, state.applied_through);
                if let Err(error) = self.board.publish(&[(p, value)]).await {
                    self.redis_away(&error);
                }
                if let Err(error) = self.leases.release(&held.lease).await {
                    self.redis_away(&error);
                }
            }
        }
        self.letting_go = still;
    }

    /// Beats, with this worker's reach and the partitions it holds (their homes written
    /// again should Redis have lost them).
    async fn beat(&self, ttl: Duration) -> redis::RedisResult<super::members::Beat> {
        let held = self
            .held
            .values()
            .filter(|h| h.lease.fence.holds())
            .map(Held::partition);
        self.members
            .beat(&self.worker, ttl, &self.reach, held)
            .await
    }

    /// Takes free partitions up to this worker's share in `placement`, or lets go of those
    /// above it.
    async fn adjust(&mut self, placement: &Placement<'_>) {
        let partitions = self.shared.partitions;
        let target = placement.target(partitions.all(), &self.worker);
        let even = placement.even(partitions.count());
        self.placing.share(target, even);
        let target = target as usize;
        let waiting: Vec<Lease> = self.waiting.values().cloned().collect();
        for lease in waiting {
            self.waiting.remove(&lease.partition);
            self.start(lease, Taking::Here).await;
        }
        let holding = self.held.len() + self.starting.len() + self.waiting.len();
        if holding > target {
            let extra: Vec<PartitionId> = self
                .held
                .keys()
                .rev()
                .take(holding - target)
                .copied()
                .collect();
            for p in extra {
                info!(partition = %p, "letting go: the partitions are shared again");
                self.stop(p, Ending::Drain, true);
            }
            return;
        }
        if holding >= target || !self.letting_go.is_empty() {
            return;
        }
        let holders = match self.leases.holders(partitions.all()).await {
            Ok(holders) => holders,
            Err(error) => return self.redis_away(&error),
        };
        // Each worker starts looking at a place of its own, so they rarely race.
        let offset = (xxhash_rust::xxh3::xxh3_64(self.worker.as_bytes())
            % u64::from(partitions.count())) as usize;
        let mut free: Vec<(PartitionId, Taking)> = holders
            .iter()
            .cycle()
            .skip(offset)
            .take(holders.len())
            .filter(|(_, holder)| holder.is_none())
            .map(|(p, _)| (*p, placement.taking(&self.reach, *p)))
            // A lease Redis lost while this worker still has the partition (a Redis that
            // lost its data): its crawl ends first.
            .filter(|(p, taking)| *taking != Taking::Elsewhere && !self.has(*p))
            .collect();
        self.placing.ripe(&mut free, Instant::now());
        for (p, taking) in free.into_iter().take(target - holding) {
            match self.leases.take(p, &self.reach).await {
                Ok(Some(lease)) => self.start(lease, taking).await,
                Ok(None) => {}
                Err(error) => return self.redis_away(&error),
            }
        }
    }

    /// Writes the idle states that changed (`all`: every one).
    async fn publish_states(&mut self, all: bool) {
        let mut changed = Vec::new();
        for (&p, held) in &self.held {
            let state = held.state.borrow();
            let value = state_value(state.idle, state.applied_through);
            if all || held.published.as_deref() != Some(value.as_str()) {
                changed.push((p, value));
            }
        }
        match self.board.publish(&changed).await {
            Ok(()) => {
                for (p, value) in changed {
                    if let Some(held) = self.held.get_mut(&p) {
                        held.published = Some(value);
                    }
                }
            }
            Err(error) => self.redis_away(&error),
        }
    }

    /// Whether every partition held is idle (and none is changing hands).
    fn all_idle(&self) -> bool {
        self.starting.is_empty()
            && self.waiting.is_empty()
            && self.letting_go.is_empty()
            && self.held.values().all(|h| {
                // Idle, and said so in Redis.
                let state = h.state.borrow();
                let value = state_value(state.idle, state.applied_through);
                value.starts_with('1') && h.published.as_deref() == Some(value.as_str())
            })
    }

    /// Logs the worker's line and publishes it.
    /// Publishes partitions' own figures, which `crawler status --redis` sums after the
    /// workers are gone.
    async fn publish_partition_figures(&mut self, figures: &[(PartitionId, Value)]) {
        if figures.is_empty() {
            return;
        }
        let mut cmd = redis::cmd("HSET");
        cmd.arg(keys::PARTITION_FIGURES);
        for (p, line) in figures {
            cmd.arg(p.dir_name()).arg(line.to_string());
        }
        if let Err(error) = self.shared.redis.query::<()>(&cmd).await {
            self.redis_away(&error);
        }
    }

    async fn figures(&mut self, redis: &Redis) {
        let states: Vec<_> = self
            .held
            .values()
            .map(|h| h.state.borrow().clone())
            .collect();
        let partitions: BTreeSet<String> = self.held.keys().map(|p| p.dir_name()).collect();
        let line = worker_line(
            &self.worker,
            states.iter(),
            partitions.into_iter().collect(),
            redis.commands(),
        );
        info!(target: "crawler::monitor", "{line}");
        let mut backlog = 0;
        for p in self.held.keys() {
            if let Ok(Some(stream)) = super::status::stream_backlog(redis, *p).await {
                backlog += stream["lag"].as_u64().unwrap_or(0);
                backlog += stream["pending"].as_u64().unwrap_or(0);
            }
        }
        self.shared.metrics.backlog(backlog);
        let own: Vec<(PartitionId, Value)> = self
            .held
            .iter()
            .map(|(&p, held)| {
                let progress = &held.state.borrow().progress;
                (p, partition_line(progress.pages_stored, progress.frontier))
            })
            .collect();
        self.publish_partition_figures(&own).await;
        let mut cmd = redis::cmd("SET");
        cmd.arg(keys::figures(&self.worker))
            .arg(line.to_string())
            .arg("PX")
            .arg(3 * FIGURES_EVERY.as_millis() as u64);
        if let Err(error) = redis.query::<()>(&cmd).await {
            self.redis_away(&error);
        }
    }

    /// Ends every partition's crawl and gives its lease back.
    async fn let_go_of_all(&mut self, ending: Ending) {
        let all: Vec<PartitionId> = self.held.keys().copied().collect();
        for p in all {
            self.stop(p, ending, true);
        }
        for (_, starting) in std::mem::take(&mut self.starting) {
            // Its store closes before the lease goes back.
            drop(starting.opening.await);
            let _ = self.leases.release(&starting.lease).await;
        }
        for (_, lease) in std::mem::take(&mut self.waiting) {
            let _ = self.leases.release(&lease).await;
        }
        while !self.letting_go.is_empty() {
            self.reap().await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A name for this worker, unique among live ones: host name, process ID and start time.
fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".to_string());
    format!(
        "{host}-{}-{}",
        std::process::id(),
        shared::now_ms() % 1_000_000
    )
}
