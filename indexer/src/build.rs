//! `build`: one index build, full or incremental, in three passes over one store snapshot.
//!
//! 1. Page metadata (no bodies kept) -> [`DocPlan`]: which pages become which documents.
//! 2. Outlinks -> [`LinkGraph`]: in-link counts and anchor text per document.
//! 3. Pages again, in URL order ([`writer`](crate::writer)): each document's inputs are
//!    fingerprinted; only documents whose fingerprint differs from the target generation's
//!    state are parsed (on parser threads, one parse per page) and written. One commit.
//!    [`build_with_progress`] counts this pass's documents in a [`BuildProgress`].
//!
//! A full build (and the first one, and any build whose state cannot be trusted) writes a new
//! generation and then switches `CURRENT` to it; an incremental build updates the current
//! generation in place with `delete_term(url)` + `add_document`, and deletes documents whose
//! page is gone or became `noindex`. Readers only ever see committed states.

use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use tracing::info;

use crate::Error;
use crate::linkgraph::LinkGraph;
use crate::progress::BuildProgress;
use crate::source::Source;
use crate::target::{BuildMode, Target};
use crate::writer::{Threads, write_documents};
use index_format::generation;
use shared::docplan::DocPlan;
use shared::docplan::PageMeta;

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// The generation written or updated (`gen-NNNNNN`).
    pub generation: String,
    /// Stored pages written since the build this one updates (every page, for a new
    /// generation): what the build had to look at again.
    pub changed_pages: u64,
    /// The newest store change number the index now holds ([`shared::PageRecord::change`]).
    pub store_change: u64,
    /// Documents added or replaced.
    pub indexed: u64,
    /// Documents removed: their page is gone, became `noindex`, or is now a duplicate.
    pub deleted: u64,
    /// Documents left as they were.
    pub unchanged: u64,
    /// Pages not indexed because they asked for `noindex`.
    pub skipped_noindex: u64,
    /// Pages folded into another page's document (same content, or a `rel=canonical`
    /// naming a page of it).
    pub skipped_duplicates: u64,
    /// Pages not indexed otherwise: non-2xx, redirects, failed fetches, empty bodies.
    pub skipped_other: u64,
    /// Documents in the generation after the build.
    pub total_docs: u64,
    /// How long the build took.
    pub elapsed: Duration,
}

impl fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} documents ({} indexed, {} unchanged, {} deleted; skipped {} noindex, {} duplicates, {} other; {} pages changed since the last build, up to store change {}) in {:.1?}",
            self.generation,
            self.total_docs,
            self.indexed,
            self.unchanged,
            self.deleted,
            self.skipped_noindex,
            self.skipped_duplicates,
            self.skipped_other,
            self.changed_pages,
            self.store_change,
            self.elapsed
        )
    }
}

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
    build_on(data, mode, progress, Threads::Machine)
}

/// [`build`] on one parser thread and one indexing thread, beside other work that needs
/// the rest of the machine: `searchd demo`'s builds while its crawl runs.
pub fn build_beside(data: &Path, mode: BuildMode) -> Result<BuildSummary, Error> {
    build_on(data, mode, &BuildProgress::new(), Threads::One)
}

/// The three passes on `threads`; running out of disk is [`Error::DiskFull`].
fn build_on(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
    threads: Threads,
) -> Result<BuildSummary, Error> {
    build_passes(data, mode, progress, threads)
        .map_err(|error| error.or_disk_full(&generation::index_dir(data)))
}

fn build_passes(
    data: &Path,
    mode: BuildMode,
    progress: &BuildProgress,
    threads: Threads,
) -> Result<BuildSummary, Error> {
    let started = Instant::now();
    let source = Source::open(data)?;
    let _lock = generation::lock(data)?;

    let metas: Vec<PageMeta> = source
        .pages()
        .map(|page| page.map(|page| PageMeta::from(&page)))
        .collect::<Result<_, Error>>()?;
    let changes: Vec<u64> = metas.iter().map(|meta| meta.change).collect();
    let store_change = changes.iter().copied().max().unwrap_or(0);
    let plan = DocPlan::new(metas);
    info!(
        documents = plan.num_docs(),
        noindex = plan.noindex(),
        duplicates = plan.duplicates(),
        "pages read"
    );
    let mut graph = LinkGraph::build(&plan, source.outlinks())?;
    info!("link graph built");

    let target = Target::choose(data, mode)?;
    // Pages written since the build the target's state comes from (all, for a new one).
    let changed_pages = changes
        .iter()
        .filter(|&&change| change == 0 || change > target.state.store_change)
        .count() as u64;
    info!(
        generation = target.name,
        fresh = target.fresh,
        changed_pages,
        store_change,
        "writing"
    );
    let result = write_documents(
        &source,
        &plan,
        &mut graph,
        &target,
        store_change,
        progress,
        threads,
    );
    let (state, counts) = match result {
        Ok(done) => done,
        Err(error) => {
            if target.fresh {
                let _ = std::fs::remove_dir_all(&target.dir);
            }
            return Err(error);
        }
    };
    if target.fresh {
        if let Err(error) = generation::switch_current(data, &target.name) {
            // Not named (yet): the next build's `remove_old` removes it if this one cannot.
            if generation::current_generation(data)
                .ok()
                .flatten()
                .as_deref()
                != Some(target.name.as_str())
            {
                let _ = std::fs::remove_dir_all(&target.dir);
            }
            return Err(error.into());
        }
        generation::remove_old(data, &target.name, target.previous.as_deref())?;
    }
    let summary = BuildSummary {
        generation: target.name,
        changed_pages,
        store_change: state.store_change,
        indexed: counts.indexed,
        deleted: counts.deleted,
        unchanged: counts.unchanged,
        skipped_noindex: plan.noindex(),
        skipped_duplicates: plan.duplicates(),
        skipped_other: plan.skipped() + counts.unreadable,
        total_docs: state.docs.len() as u64,
        elapsed: started.elapsed(),
    };
    info!(%summary, "build done");
    Ok(summary)
}
