//! `build`: one index build, full or incremental, in three passes over one store snapshot.
//!
//! 1. Page metadata (no bodies kept) -> [`DocPlan`]: which pages become which documents.
//! 2. Outlinks -> [`LinkGraph`]: in-link counts and anchor text per document.
//! 3. Pages again, in URL order: each document's inputs are fingerprinted; only documents
//!    whose fingerprint differs from the target generation's state are parsed (on worker
//!    threads, one parse per page) and written. One commit at the end.
//!
//! A full build (and the first one, and any build whose state cannot be trusted) writes a new
//! generation and then switches `CURRENT` to it; an incremental build updates the current
//! generation in place with `delete_term(url)` + `add_document`, and deletes documents whose
//! page is gone or became `noindex`. Readers only ever see committed states.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use tantivy::{Index, IndexWriter, TantivyDocument, Term};
use tracing::{info, warn};

use crate::Error;
use crate::document::DocInput;
use crate::generation::{self, generation_dir};
use crate::linkgraph::LinkGraph;
use crate::plan::DocPlan;
use crate::schema::{IndexFields, schema};
use crate::source::{PageMeta, Source};
use crate::state::DocState;

/// Memory for tantivy's indexing buffers, shared by its threads.
const WRITER_HEAP: usize = 192 * 1024 * 1024;
/// Documents waiting for a parser, per parser thread (bounds the bodies held in memory).
const QUEUE_PER_WORKER: usize = 2;
/// Most parser threads.
const MAX_WORKERS: usize = 4;
/// A progress event every this many documents written.
const PROGRESS_EVERY: u64 = 5_000;

/// How much to rebuild.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildMode {
    /// Update the current generation with the documents that changed (a new generation when
    /// there is none yet, or its state cannot be trusted).
    Incremental,
    /// Write a new generation and switch `CURRENT` to it.
    Full,
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// The generation written or updated (`gen-NNNNNN`).
    pub generation: String,
    /// Documents added or replaced.
    pub indexed: u64,
    /// Documents removed: their page is gone, became `noindex`, or is now a duplicate.
    pub deleted: u64,
    /// Documents left as they were.
    pub unchanged: u64,
    /// Pages not indexed because they asked for `noindex`.
    pub skipped_noindex: u64,
    /// Pages folded into another page's document (same content).
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
            "{}: {} documents ({} indexed, {} unchanged, {} deleted; skipped {} noindex, {} duplicates, {} other) in {:.1?}",
            self.generation,
            self.total_docs,
            self.indexed,
            self.unchanged,
            self.deleted,
            self.skipped_noindex,
            self.skipped_duplicates,
            self.skipped_other,
            self.elapsed
        )
    }
}

/// Builds or updates the index of a data directory: reads `DATA/store` (read-only, a crawl
/// may be running) and writes `DATA/index`.
pub fn build(data: &Path, mode: BuildMode) -> Result<BuildSummary, Error> {
    let started = Instant::now();
    let source = Source::open(data)?;
    let _lock = generation::lock(data)?;

    let plan = DocPlan::new(
        source
            .pages()
            .map(|page| page.map(|page| PageMeta::from(&page))),
    )?;
    info!(
        documents = plan.num_docs(),
        noindex = plan.noindex(),
        duplicates = plan.duplicates(),
        "pages read"
    );
    let mut graph = LinkGraph::build(&plan, source.outlinks())?;
    info!("link graph built");

    let target = Target::choose(data, mode)?;
    info!(generation = target.name, fresh = target.fresh, "writing");
    let result = write(&source, &plan, &mut graph, &target);
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
        generation::switch_current(data, &target.name)?;
        generation::remove_old(data, &target.name, target.previous.as_deref())?;
    }
    let summary = BuildSummary {
        generation: target.name,
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

/// The generation a build writes.
struct Target {
    name: String,
    dir: PathBuf,
    index: Index,
    /// The documents it holds now.
    state: DocState,
    /// A new generation (switched to at the end).
    fresh: bool,
    /// The generation `CURRENT` named before.
    previous: Option<String>,
}

impl Target {
    fn choose(data: &Path, mode: BuildMode) -> Result<Self, Error> {
        let current = generation::current_generation(data)?;
        if let (BuildMode::Incremental, Some(name)) = (mode, &current)
            && let Some(target) = Self::reuse(data, name)?
        {
            return Ok(target);
        }
        Self::create(data, current)
    }

    /// The current generation, if an incremental build can trust it.
    fn reuse(data: &Path, name: &str) -> Result<Option<Self>, Error> {
        let dir = generation_dir(data, name);
        let distrust = |why: &str| {
            warn!(
                generation = name,
                why, "writing a new generation instead of updating"
            );
            Ok(None)
        };
        if !dir.is_dir() {
            return distrust("its directory is missing");
        }
        let Some(state) = DocState::load(&dir) else {
            return distrust("its document state is missing or old");
        };
        let index = match Index::open_in_dir(&dir) {
            Ok(index) => index,
            Err(_) => return distrust("it does not open"),
        };
        if index.schema() != schema() {
            return distrust("its schema differs");
        }
        if index.load_metas()?.payload.as_deref() != Some(state.payload().as_str()) {
            return distrust("its document state does not match its last commit");
        }
        Ok(Some(Self {
            name: name.to_string(),
            dir,
            index,
            state,
            fresh: false,
            previous: None,
        }))
    }

    fn create(data: &Path, current: Option<String>) -> Result<Self, Error> {
        let name = generation::next_generation(data)?;
        let dir = generation_dir(data, &name);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let index = Index::create_in_dir(&dir, schema())?;
        Ok(Self {
            name,
            dir,
            index,
            state: DocState::new(),
            fresh: true,
            previous: current,
        })
    }
}

#[derive(Default)]
struct Counts {
    indexed: u64,
    deleted: u64,
    unchanged: u64,
    /// Planned documents whose stored body does not decompress.
    unreadable: u64,
}

/// Pass 3: writes the changed documents and commits; returns the new state.
fn write(
    source: &Source,
    plan: &DocPlan,
    graph: &mut LinkGraph,
    target: &Target,
) -> Result<(DocState, Counts), Error> {
    let fields = IndexFields::new(&target.index.schema())?;
    let mut writer: IndexWriter<TantivyDocument> = target.index.writer(WRITER_HEAP)?;
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, MAX_WORKERS);
    let old = &target.state;
    let mut state = DocState {
        format: old.format,
        build: old.build + 1,
        docs: Default::default(),
    };
    let mut counts = Counts::default();

    let (sender, receiver) = sync_channel::<DocInput>(workers * QUEUE_PER_WORKER);
    let receiver = Mutex::new(receiver);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let worker = Worker {
        receiver: &receiver,
        writer: &writer,
        fields: &fields,
        replace: !target.fresh,
        failure: &failure,
        failed: &failed,
    };
    let fed = std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| worker.run());
        }
        let sender = sender;
        feed(
            source,
            plan,
            graph,
            old,
            &mut state,
            &mut counts,
            &sender,
            &failed,
        )
    });
    fed?;
    if let Some(error) = failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(error);
    }
    if !target.fresh {
        for url in old.docs.keys().filter(|url| !state.docs.contains_key(*url)) {
            writer.delete_term(Term::from_field_text(fields.url, url));
            counts.deleted += 1;
        }
    }
    if target.fresh || counts.indexed > 0 || counts.deleted > 0 {
        let mut commit = writer.prepare_commit()?;
        commit.set_payload(&state.payload());
        commit.commit()?;
        writer.wait_merging_threads()?;
        state.save(&target.dir)?;
    } else {
        // Nothing changed: the generation, its commit and its state stay as they are.
        state.build = old.build;
    }
    Ok((state, counts))
}

/// Reads the pages in URL order and hands every changed document to the parser threads.
#[allow(clippy::too_many_arguments)] // one call site; the pass's inputs and outputs
fn feed(
    source: &Source,
    plan: &DocPlan,
    graph: &mut LinkGraph,
    old: &DocState,
    state: &mut DocState,
    counts: &mut Counts,
    sender: &SyncSender<DocInput>,
    failed: &AtomicBool,
) -> Result<(), Error> {
    for page in source.pages() {
        let page = page?;
        let Some(doc) = plan.doc_of_representative(&page.url) else {
            continue;
        };
        let inbound = graph.take(doc);
        let html = match page.body.decompress() {
            Ok(html) => html,
            Err(error) => {
                warn!(url = page.url, %error, "stored body does not decompress; page skipped");
                counts.unreadable += 1;
                continue;
            }
        };
        let input = DocInput::new(&page, html, inbound);
        drop(page);
        let fingerprint = input.fingerprint();
        let unchanged = old.docs.get(&input.url) == Some(&fingerprint);
        state.docs.insert(input.url.clone(), fingerprint);
        if unchanged {
            counts.unchanged += 1;
            continue;
        }
        if failed.load(Ordering::Relaxed) || sender.send(input).is_err() {
            break;
        }
        counts.indexed += 1;
        if counts.indexed.is_multiple_of(PROGRESS_EVERY) {
            info!(
                indexed = counts.indexed,
                unchanged = counts.unchanged,
                of = plan.num_docs(),
                "indexing"
            );
        }
    }
    Ok(())
}

/// A parser thread: extracts text and adds documents until the queue closes. After a failure
/// it keeps draining the queue (so the feeder never blocks) without doing the work.
struct Worker<'a> {
    receiver: &'a Mutex<Receiver<DocInput>>,
    writer: &'a IndexWriter<TantivyDocument>,
    fields: &'a IndexFields,
    /// Delete an older version of each document first (updating a generation in place).
    replace: bool,
    failure: &'a Mutex<Option<Error>>,
    failed: &'a AtomicBool,
}

impl Worker<'_> {
    fn run(&self) {
        loop {
            let next = self
                .receiver
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv();
            let Ok(input) = next else { return };
            if self.failed.load(Ordering::Relaxed) {
                continue;
            }
            let outcome = catch_unwind(AssertUnwindSafe(|| self.add(&input)));
            let error = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(error)) => error,
                Err(panic) => Error::Worker(format!(
                    "{} while indexing {}",
                    panic_message(&*panic),
                    input.url
                )),
            };
            self.failed.store(true, Ordering::Relaxed);
            self.failure
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(error);
        }
    }

    fn add(&self, input: &DocInput) -> Result<(), Error> {
        let doc = input.to_document(self.fields);
        if self.replace {
            self.writer
                .delete_term(Term::from_field_text(self.fields.url, &input.url));
        }
        self.writer.add_document(doc)?;
        Ok(())
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}
