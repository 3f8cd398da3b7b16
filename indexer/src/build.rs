//! `build`: one index build, full or incremental, in three passes over one store snapshot.
//!
//! 1. Page metadata (no bodies kept) -> [`DocPlan`]: which pages become which documents;
//!    a bounded sample of each host's pages -> its template ([`TemplateLearner`]), the text
//!    it repeats on most pages, left out of its documents.
//! 2. Outlinks -> [`LinkGraph`]: in-link counts and anchor text per document (the texts
//!    spilled to `DATA/anchor-spill` within a memory budget, [`DEFAULT_ANCHOR_BUDGET`] or
//!    `indexer build --anchor-memory`, and kept there until pass 3 writes each document;
//!    removed when the build ends, or by the next build after a killed one).
//! 3. Pages again, in URL order ([`writer`](crate::writer)): each document's inputs are
//!    fingerprinted; only documents whose fingerprint differs from the target generation's
//!    state are parsed (on parser threads, one parse per page) and written. One commit.
//!    [`build_with_progress`] counts this pass's documents in a [`BuildProgress`].
//!    Then the generation's image index, whole, in one commit ([`crate::images`]: what the
//!    pages showing each image say of it, the store's `images` family inverted once, between
//!    passes 2 and 3, with each page's in-links).
//!
//! A full build (and the first one, and any build whose state cannot be trusted) writes a new
//! generation and then switches `CURRENT` to it; an incremental build updates the current
//! generation in place with `delete_term(url)` + `add_document`, and deletes documents whose
//! page is gone or became `noindex`. Readers only ever see committed states.
//!
//! A partitioned data directory (`DATA/partitions/p-NNN`, see [`shared::partition`]) builds
//! one index shard per partition, in `DATA/partitions/p-NNN/index`, generations and `CURRENT`
//! as above. Passes 1 and 2 read every partition's store (outlinks merged in URL order,
//! [`ByUrl`]), so the plan (copies across partitions fold into one document) and the link
//! signals (in-links, anchors, PageRank) are those of one store holding every page; pass 3
//! writes each shard the documents whose representative page its own store holds, and each
//! shard's incremental state follows its own store's change numbers.
//!
//! When the crawl's partitions live on several machines ([`build_exchanging`] with an
//! [`Exchange`], `indexer build --redis`), the machine joins the exchange round before pass 1;
//! pass 2 reads the local outlinks once to send other machines' partitions their
//! contributions ([`outgoing`]) in batches as it goes, waits for theirs, spills them to
//! `DATA/exchange-spill` within a memory budget (removed when the build ends, or by the next
//! build after a killed one), refines PageRank shares with them, then builds the link graph
//! from the local outlinks and what arrived, merged in URL order.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tracing::info;

use crate::Error;
use crate::by_url::ByUrl;
use crate::completions;
use crate::exchange::{self, Exchange};
use crate::held::Held;
use crate::images::{ImageInputs, Showings, write_images};
use crate::linkgraph::anchors::AnchorSpill;
use crate::linkgraph::outgoing::outgoing;
use crate::linkgraph::spill::{self, SpillDir};
use crate::linkgraph::{LinkGraph, host, merged};
use crate::progress::BuildProgress;
use crate::source::Source;
use crate::summary::BuildSummary;
use crate::target::{BuildMode, Target};
use crate::template::{TemplateLearner, Templates};
use crate::writer::{DEFAULT_WRITER_BUDGET, MIN_WRITER_BUDGET, Threads, Writing, write_documents};
use index_format::completions::completions_file;
use index_format::generation;
use shared::docplan::DocPlan;
use shared::docplan::PageMeta;
use shared::partition::{self, PartitionId};
use shared::record::RenderedPage;

/// The anchor texts a build holds in memory while it reads links, in bytes (estimated): past
/// it they are sorted to runs on disk (`indexer build --anchor-memory`).
pub const DEFAULT_ANCHOR_BUDGET: usize = 16 << 20;

/// Where a build spills anchor texts and keeps each document's, under `DATA`.
const ANCHOR_SPILL_DIR: &str = "anchor-spill";

/// Builds or updates the index of a data directory: reads `DATA/store` (read-only, a crawl
/// may be running) and writes `DATA/index`.
pub fn build(data: &Path, mode: BuildMode) -> Result<BuildSummary, Error> {
    build_with_progress(data, mode, &BuildProgress::new())
}

/// [`build`], reporting the write pass's documents in `progress` as it goes, for a caller
/// that shows them (from another thread) while the build runs. A build that runs out of
/// disk fails with [`Error::DiskFull`], naming `DATA/index`.
pub fn build_with_progress(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
) -> Result<BuildSummary, Error> {
    let links = Links {
        exchange: None,
        anchor_budget: DEFAULT_ANCHOR_BUDGET,
    };
    build_on(
        data,
        mode,
        progress,
        Writing::machine(DEFAULT_WRITER_BUDGET),
        links,
    )
}

/// How a build reads link signals: from this machine's stores alone or exchanged with other
/// machines, and within how much memory for their anchor texts.
#[derive(Clone, Copy, Debug)]
pub struct Links<'a> {
    /// The exchange with the other machines holding the crawl's partitions, if any.
    pub exchange: Option<&'a Exchange>,
    /// Bytes of anchor texts held while links are read ([`DEFAULT_ANCHOR_BUDGET`]).
    pub anchor_budget: usize,
}

/// [`build_with_progress`] on one machine of several holding a crawl's partitions: link
/// signals are exchanged with the others through Redis (the `exchange` module), so each
/// shard gets its pages' in-links and anchors from every partition. Without an exchange, a
/// data directory holding only some of its crawl's partitions is built with what it holds,
/// and a warning names the others. tantivy's indexing buffers take `writer_budget` bytes
/// at most ([`DEFAULT_WRITER_BUDGET`]; at least [`MIN_WRITER_BUDGET`]).
pub fn build_exchanging(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
    links: Links<'_>,
    writer_budget: usize,
) -> Result<BuildSummary, Error> {
    let writing = Writing::machine(writer_budget.max(MIN_WRITER_BUDGET));
    build_on(data, mode, progress, writing, links)
}

/// [`build`] on one parser thread and one indexing thread, beside other work that needs
/// the rest of the machine: `searchd demo`'s builds while its crawl runs.
pub fn build_beside(data: &Path, mode: BuildMode) -> Result<BuildSummary, Error> {
    let links = Links {
        exchange: None,
        anchor_budget: DEFAULT_ANCHOR_BUDGET,
    };
    let writing = Writing {
        threads: Threads::One,
        budget: DEFAULT_WRITER_BUDGET,
    };
    build_on(data, mode, &BuildProgress::new(), writing, links)
}

/// The three passes, writing as `writing` says; running out of disk is [`Error::DiskFull`].
fn build_on(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
    writing: Writing,
    links: Links<'_>,
) -> Result<BuildSummary, Error> {
    build_passes(data, mode, progress, writing, links)
        .map_err(|error| error.or_disk_full(&generation::index_dir(data)))
}

fn build_passes(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
    writing: Writing,
    Links {
        exchange,
        anchor_budget,
    }: Links<'_>,
) -> Result<BuildSummary, Error> {
    let started = Instant::now();
    let partitions = partition::local_partitions(data).map_err(|e| Error::io(data, e))?;
    if partitions.is_empty() && exchange.is_some() {
        return Err(Error::Partitions(format!(
            "--redis exchanges link signals between machines holding a crawl's partitions, \
             and {} holds none (no partitions/p-NNN)",
            data.display()
        )));
    }
    let ids: Vec<PartitionId> = partitions.iter().map(|(id, _)| *id).collect();
    let dirs: Vec<PathBuf> = if partitions.is_empty() {
        vec![data.to_path_buf()]
    } else {
        partitions.into_iter().map(|(_, dir)| dir).collect()
    };
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let source = Source::open(&dir)?;
        let lock = generation::lock(&dir)?;
        shards.push(Shard {
            dir,
            source,
            _lock: lock,
            changes: Vec::new(),
        });
    }
    // What a build killed on this data directory left (the shards are locked: no build runs
    // here).
    spill::remove_leftover(&data.join(exchange::SPILL_DIR))?;
    spill::remove_leftover(&data.join(ANCHOR_SPILL_DIR))?;
    let found: Vec<(PartitionId, &Source)> = ids
        .iter()
        .copied()
        .zip(shards.iter().map(|shard| &shard.source))
        .collect();
    let held = Held::read(&found)?;
    // Joined before the passes, so a partition claimed twice stops the build at once.
    let mut exchanging = match exchange {
        Some(exchange) => Some(exchange::join(exchange, held.crawl, &held.ids)?),
        None => {
            held.warn_if_partial();
            None
        }
    };

    let mut metas: Vec<PageMeta> = Vec::new();
    let mut learner = TemplateLearner::new();
    for shard in &mut shards {
        let mut renders = shard.source.rendered_in_order();
        for page in shard.source.pages() {
            let page = page?;
            learner.offer(&page, || {
                let render = renders.get(&page.url)?;
                Ok::<_, Error>(render.and_then(RenderedPage::into_document))
            })?;
            let meta = PageMeta::from(&page);
            shard.changes.push(meta.change);
            metas.push(meta);
        }
    }
    let templates = learner.finish();
    let plan = DocPlan::new(metas);
    info!(
        documents = plan.num_docs(),
        noindex = plan.noindex(),
        duplicates = plan.duplicates(),
        shards = shards.len(),
        host_templates = templates.hosts(),
        template_blocks = templates.blocks(),
        hosts_without_template_past_the_cap = templates.dropped,
        "pages read"
    );
    let outlinks = || ByUrl::new(shards.iter().map(|shard| shard.source.outlinks()).collect());
    let anchor_dir = SpillDir::create(data.join(ANCHOR_SPILL_DIR))?;
    let anchor_spill = AnchorSpill {
        dir: anchor_dir.path(),
        budget: anchor_budget,
    };
    let mut exchanged = None;
    let mut graph = match exchanging.take() {
        None => LinkGraph::build(&plan, outlinks(), anchor_spill)?,
        Some(mut exchanging) => {
            let crawl = exchanging.partitions();
            let elsewhere = |url: &str| {
                let p = crawl.of_host(host(url));
                (!held.ids.contains(&p)).then_some(p.get())
            };
            let spill = SpillDir::create(data.join(exchange::SPILL_DIR))?;
            shared::fail_point!("indexer::exchange::before_send");
            let mut sender = exchanging.sender();
            let outgoing = outgoing(&plan, outlinks(), elsewhere, &mut sender)?;
            sender.flush()?;
            let (arrived, summary) = exchanging.exchange(&plan, &outgoing, spill.path())?;
            exchanged = Some(summary);
            let sources = merged(outlinks(), arrived.sources()?);
            LinkGraph::build_from(&plan, sources, &outgoing.remote_degree, anchor_spill)?
        }
    };
    info!("link graph built");
    // Read once, before pass 3: every shard's images need the pages of every shard.
    let sources: Vec<&Source> = shards.iter().map(|shard| &shard.source).collect();
    let showings = Showings::collect(&sources, &plan, &graph)?;
    info!(
        images_shown = showings.num_images(),
        pages_showing_images = showings.num_pages(),
        "image showings read"
    );
    let images = ImageInputs {
        sources: &sources,
        showings: &showings,
        plan: &plan,
    };

    let mut summary: Option<BuildSummary> = None;
    let named = shards.len() > 1;
    for (number, shard) in shards.iter().enumerate() {
        let mut written = write_shard(
            (shard, number),
            &plan,
            (&mut graph, &templates),
            (mode, images),
            progress,
            writing,
        )?;
        if named {
            let name = shard.dir.file_name().unwrap_or_default().to_string_lossy();
            written.generation = format!("{name}/{}", written.generation);
        }
        summary = Some(match summary {
            Some(sum) => sum.add(written),
            None => written,
        });
    }
    let mut summary = summary.unwrap_or_default();
    summary.skipped_noindex = plan.noindex();
    summary.skipped_duplicates = plan.duplicates();
    summary.skipped_other += plan.skipped();
    summary.elapsed = started.elapsed();
    summary.exchange = exchanged;
    info!(%summary, "build done");
    Ok(summary)
}

/// One index shard being built: a data directory (`DATA`, or a partition's), its store read
/// and its index locked.
struct Shard {
    dir: PathBuf,
    source: Source,
    _lock: generation::BuildLock,
    /// The change number of each of its pages (pass 1).
    changes: Vec<u64>,
}

/// Pass 3 for one shard (and its number among the build's): chooses its target generation,
/// writes its pages and its images and switches to it. The plan-wide counts (noindex,
/// duplicates, skipped) are left to the caller.
fn write_shard(
    (shard, number): (&Shard, usize),
    plan: &DocPlan,
    (graph, templates): (&mut LinkGraph, &Templates),
    (mode, images): (BuildMode, ImageInputs<'_>),
    progress: &BuildProgress,
    writing: Writing,
) -> Result<BuildSummary, Error> {
    let store_change = shard.changes.iter().copied().max().unwrap_or(0);
    let target = Target::choose(&shard.dir, mode)?;
    // Pages written since the build the target's state comes from (all, for a new one).
    let changed_pages = shard
        .changes
        .iter()
        .filter(|&&change| change == 0 || change > target.state.store_change)
        .count() as u64;
    info!(
        shard = %shard.dir.display(),
        generation = target.name,
        fresh = target.fresh,
        changed_pages,
        store_change,
        "writing"
    );
    let result = write_documents(
        &shard.source,
        plan,
        (graph, templates),
        &target,
        store_change,
        progress,
        writing,
    )
    .and_then(|written| {
        let indexed_images = write_images(&target.dir, target.fresh, number, images)?;
        let (_, counts) = &written;
        let changed = target.fresh || counts.indexed > 0 || counts.deleted > 0;
        if changed || !completions_file(&target.dir).exists() {
            let started = Instant::now();
            let phrases = completions::write(&target.dir, &target.index)?;
            let ms = started.elapsed().as_millis() as u64;
            info!(shard = %shard.dir.display(), phrases, ms, "completions written");
        }
        Ok((written, indexed_images))
    });
    let ((state, counts), indexed_images) = match result {
        Ok(done) => done,
        Err(error) => {
            if target.fresh {
                let _ = std::fs::remove_dir_all(&target.dir);
            }
            return Err(error);
        }
    };
    target.switch(&shard.dir)?;
    Ok(BuildSummary {
        generation: target.name,
        changed_pages,
        store_change: state.store_change,
        indexed: counts.indexed,
        deleted: counts.deleted,
        unchanged: counts.unchanged,
        skipped_other: counts.unreadable,
        total_docs: state.docs.len() as u64,
        images: indexed_images,
        ..BuildSummary::default()
    })
}
