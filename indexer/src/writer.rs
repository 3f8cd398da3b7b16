//! Pass 3 of a build: fingerprints every document, parses and writes the changed ones on
//! parser threads, deletes the ones that are gone, and commits once; a new generation is
//! then merged into one segment.
//!
//! The feeder (the calling thread) reads pages in URL order and fingerprints them (by the
//! page's store change number and its link signals); a document whose fingerprint is
//! unchanged is never decompressed or parsed. A changed page that was rendered in a browser
//! is read from the document after its scripts ran (its render, found by walking the
//! `rendered` family beside the pages), else from its stored body ([`DocHtml`]). Changed
//! documents go through a bounded queue (so only a few bodies are in memory) to parser
//! threads, which extract the text and hand the document to tantivy's own indexing threads,
//! waiting while those hold an eighth of the writer's budget in documents not yet indexed
//! ([`QueueBudget`]).
//!
//! A query pays for every segment, so segments do not pile up: a new generation is merged
//! into one, and an update in place merges its small segments two at a time
//! ([`tail_merges`]) instead of leaving them beside the one a full build made.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use tantivy::indexer::{LogMergePolicy, NoMergePolicy};
use tantivy::{IndexWriter, Term};
use tracing::{info, warn};

use crate::Error;
use crate::document::{DocHtml, DocInput, fingerprint};
use crate::linkgraph::LinkGraph;
use crate::progress::BuildProgress;
use crate::queued::{QueueBudget, Queued};
use crate::source::{RenderedWalk, Source};
use crate::stemmed::Analyzers;
use crate::target::Target;
use crate::template::Templates;
use index_format::DocState;
use index_format::IndexFields;
use shared::docplan::DocPlan;
use shared::record::PageRecord;
use shared::{ContentKind, RecordError};

/// Memory for tantivy's indexing buffers, shared by its threads, by default (`indexer build
/// --writer-memory`): past it, the documents indexed so far are written as a segment.
pub const DEFAULT_WRITER_BUDGET: usize = 192 << 20;
/// The least that budget may be: tantivy's own floor for one indexing thread (15 MB).
pub const MIN_WRITER_BUDGET: usize = 15_000_000;
/// Documents waiting for a parser, per parser thread (bounds the bodies held in memory).
const QUEUE_PER_WORKER: usize = 2;
/// Most parser threads.
const MAX_WORKERS: usize = 4;
/// The documents waiting for tantivy's indexing threads hold this share of the writer's
/// budget more, as [`DocInput::document_bytes`] counts them (an eighth: 24 MiB at the
/// default 192 MiB, 2 MiB at 16).
const QUEUE_SHARE: usize = 8;
/// How a build's writing pass runs: its threads and the memory of tantivy's buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writing {
    pub(crate) threads: Threads,
    /// Bytes of tantivy's indexing buffers, shared by its threads (at least
    /// [`MIN_WRITER_BUDGET`]; tantivy takes fewer threads where each would get less).
    pub(crate) budget: usize,
}

impl Writing {
    /// As many threads as help ([`Threads::Machine`]), within `budget` bytes.
    pub(crate) fn machine(budget: usize) -> Self {
        Self {
            threads: Threads::Machine,
            budget,
        }
    }
}

/// How many threads a build's writing pass takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Threads {
    /// As many as help: a parser per core (at most [`MAX_WORKERS`]) and tantivy's own count
    /// of indexing threads.
    Machine,
    /// One parser and one indexing thread, leaving the rest of the machine to other work.
    One,
}

/// A progress event every this many documents written.
const PROGRESS_EVERY: u64 = 5_000;

/// What pass 3 did.
#[derive(Default)]
pub(crate) struct Counts {
    /// Documents added or replaced.
    pub indexed: u64,
    /// Documents deleted.
    pub deleted: u64,
    /// Documents left as they were.
    pub unchanged: u64,
    /// Planned documents whose stored body does not decompress.
    pub unreadable: u64,
}

/// Pass 3: writes the documents whose fingerprint differs from the target's state into its
/// index (a new generation when `fresh`, else the current one updated in place), deletes the
/// documents that are gone, commits once, and saves the new state in its directory. Counts
/// the documents gone through in `progress`.
pub(crate) fn write_documents(
    source: &Source,
    plan: &DocPlan,
    (graph, templates): (&mut LinkGraph, &Templates),
    target: &Target,
    plan_store_change: u64,
    progress: &BuildProgress,
    writing: Writing,
) -> Result<(DocState, Counts), Error> {
    let (index, dir, old, fresh) = (&target.index, &target.dir, &target.state, target.fresh);
    let fields = IndexFields::new(&index.schema())?;
    let (writer, workers) = open_writer(index, writing, fresh)?;
    let mut state = DocState {
        format: old.format,
        build: old.build + 1,
        docs: Default::default(),
        store_change: plan_store_change,
    };
    let mut counts = Counts::default();

    let (sender, receiver) = sync_channel::<DocInput>(workers * QUEUE_PER_WORKER);
    let receiver = Mutex::new(receiver);
    let queue = QueueBudget::new(writing.budget / QUEUE_SHARE);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let failed = AtomicBool::new(false);
    let worker = Worker {
        receiver: &receiver,
        writer: &writer,
        queue: &queue,
        fields: &fields,
        replace: !fresh,
        failure: &failure,
        failed: &failed,
    };
    let fed = std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| worker.run());
        }
        let sender = sender;
        progress.start(plan.num_docs() as u64);
        let mut out = FeedOut {
            state: &mut state,
            counts: &mut counts,
            progress,
        };
        let inputs = FeedIn {
            source,
            plan,
            templates,
            old,
        };
        feed(&inputs, graph, &mut out, &sender, &failed)
    });
    fed?;
    if let Some(error) = failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(error);
    }
    if !fresh {
        for url in old.docs.keys().filter(|url| !state.docs.contains_key(*url)) {
            writer.delete_term(Term::from_field_text(fields.url, url));
            counts.deleted += 1;
        }
    }
    if fresh || counts.indexed > 0 || counts.deleted > 0 {
        commit(writer, index, &state.payload(), fresh)?;
        state.save(dir)?;
    } else {
        // Nothing changed: the generation, its commit and its state stay as they are.
        state.build = old.build;
        state.store_change = old.store_change;
    }
    Ok((state, counts))
}

/// A writer for `index` as `writing` says, and how many parser threads feed it. A fresh
/// generation's writer merges nothing while it writes: [`commit`] merges it into one segment
/// at the end, and a merge of tantivy's own still running then would take segments from
/// under that one (the build failed with "The segments that were merged could not be found
/// in the SegmentManager" once a corpus filled the writer's buffers eight times). An update
/// in place merges as [`tail_merges`] says.
fn open_writer(
    index: &tantivy::Index,
    Writing { threads, budget }: Writing,
    fresh: bool,
) -> Result<(IndexWriter<Queued>, usize), Error> {
    let (writer, workers): (IndexWriter<Queued>, usize) = match threads {
        Threads::Machine => {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            (index.writer(budget)?, cores.clamp(1, MAX_WORKERS))
        }
        Threads::One => (index.writer_with_num_threads(1, budget)?, 1),
    };
    if fresh {
        writer.set_merge_policy(Box::new(NoMergePolicy));
    } else {
        writer.set_merge_policy(Box::new(tail_merges()));
    }
    Ok((writer, workers))
}

/// Commits what `writer` was given with `payload`, and waits for its merges. A fresh
/// generation is then merged into one segment: every query reads each segment's
/// dictionaries and columns (the commit's payload stays in its meta).
fn commit(
    mut writer: IndexWriter<Queued>,
    index: &tantivy::Index,
    payload: &str,
    fresh: bool,
) -> Result<(), Error> {
    let mut commit = writer.prepare_commit()?;
    commit.set_payload(payload);
    commit.commit()?;
    if fresh {
        let segments = index.searchable_segment_ids()?;
        if segments.len() > 1 {
            writer.merge(&segments).wait()?;
        }
    }
    writer.wait_merging_threads()?;
    Ok(())
}

/// Segments smaller than this are all of one size to [`tail_merges`].
const TAIL_SEGMENT_DOCS: u32 = 1_000;

/// The merges an update in place makes: segments of like size (within a factor of about
/// 1.7, every one under [`TAIL_SEGMENT_DOCS`] alike) are merged as soon as there are two, so
/// the small segments update after update adds become one instead of piling up beside the
/// large one a full build made. Each query pays for every segment (its terms looked up and
/// its postings opened in each): the bench's index, one full build then two updates of 1%,
/// was answered with 0.89x the CPU once its three segments were one. A document is merged
/// again only when its segment has grown by half or so, and a full build's segment is left
/// alone until updates have rewritten a like number of documents.
fn tail_merges() -> LogMergePolicy {
    let mut policy = LogMergePolicy::default();
    policy.set_min_num_segments(2);
    policy.set_min_layer_size(TAIL_SEGMENT_DOCS);
    policy
}

/// What the feeder records: the new state, the counts, and the progress shown to people.
struct FeedOut<'a> {
    state: &'a mut DocState,
    counts: &'a mut Counts,
    progress: &'a BuildProgress,
}

/// What the feeder reads: the store, the plan, the hosts' templates and the old state.
struct FeedIn<'a> {
    source: &'a Source,
    plan: &'a DocPlan,
    templates: &'a Templates,
    old: &'a DocState,
}

/// Reads the pages in URL order and hands every changed document to the parser threads.
fn feed(
    inputs: &FeedIn<'_>,
    graph: &mut LinkGraph,
    out: &mut FeedOut<'_>,
    sender: &SyncSender<DocInput>,
    failed: &AtomicBool,
) -> Result<(), Error> {
    let FeedOut {
        state,
        counts,
        progress,
    } = out;
    let FeedIn {
        source,
        plan,
        templates,
        old,
    } = inputs;
    let mut rendered = source.rendered_in_order();
    for page in source.pages() {
        let page = page?;
        let Some(doc) = plan.doc_of_representative(&page.url) else {
            continue;
        };
        let inbound = graph.inbound(doc)?;
        let copies = plan.copies(doc);
        let template = templates.of_url(&page.url);
        let fingerprint = fingerprint(&page, &inbound, &copies, &template);
        let unchanged = old.docs.get(&page.url) == Some(&fingerprint);
        state.docs.insert(page.url.clone(), fingerprint);
        if unchanged {
            counts.unchanged += 1;
            progress.advance();
            continue;
        }
        let html = match html_of(&page, &mut rendered)? {
            Ok(html) => html,
            Err(error) => {
                warn!(url = page.url, %error, "stored body does not decompress; page skipped");
                state.docs.remove(&page.url);
                counts.unreadable += 1;
                progress.advance();
                continue;
            }
        };
        let input = DocInput::new(&page, html, inbound, copies, template);
        drop(page);
        if failed.load(Ordering::Relaxed) || sender.send(input).is_err() {
            break;
        }
        counts.indexed += 1;
        progress.advance();
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

/// What a changed page's document is read from: the document after its scripts ran when
/// it was rendered ([`DocHtml::Rendered`]), else its stored body. The inner error is a body
/// that does not decompress (the page is skipped); the outer one a failed read of the store.
fn html_of(
    page: &PageRecord,
    rendered: &mut RenderedWalk<'_>,
) -> Result<Result<DocHtml, RecordError>, Error> {
    if page.kind == ContentKind::Html
        && let Some(render) = rendered.get(&page.url)?
    {
        match render.rendered_html() {
            Some(Ok(html)) => return Ok(Ok(DocHtml::Rendered(html))),
            Some(Err(error)) => warn!(
                url = page.url,
                %error,
                "rendered HTML does not decompress; the static page is indexed"
            ),
            None => {}
        }
    }
    Ok(page.body.decompress().map(DocHtml::Static))
}

/// A parser thread: extracts text and adds documents until the queue closes. After a failure
/// it keeps draining the queue (so the feeder never blocks) without doing the work.
struct Worker<'a> {
    receiver: &'a Mutex<Receiver<DocInput>>,
    writer: &'a IndexWriter<Queued>,
    /// Room for the documents waiting for tantivy's indexing threads.
    queue: &'a Arc<QueueBudget>,
    fields: &'a IndexFields,
    /// Delete an older version of each document first (updating a generation in place).
    replace: bool,
    failure: &'a Mutex<Option<Error>>,
    failed: &'a AtomicBool,
}

impl Worker<'_> {
    fn run(&self) {
        let mut analyzers = Analyzers::default();
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
            let outcome = catch_unwind(AssertUnwindSafe(|| self.add(&input, &mut analyzers)));
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

    fn add(&self, input: &DocInput, analyzers: &mut Analyzers) -> Result<(), Error> {
        let doc = input.to_document(self.fields, analyzers);
        if self.replace {
            self.writer
                .delete_term(Term::from_field_text(self.fields.url, &input.url));
        }
        self.writer
            .add_document(self.queue.admit(doc, input.document_bytes()))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::doc;
    use tantivy::schema::{STORED, Schema, TEXT};

    /// A fresh generation of many segments (as a corpus past the writer's budget leaves)
    /// commits as one. With tantivy's own merges on while it was written, this failed: one
    /// of them, started at a commit, held segments the final merge wanted.
    #[test]
    fn a_fresh_generation_of_many_segments_commits_as_one() {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT | STORED);
        let index = tantivy::Index::create_in_ram(schema.build());
        let writing = Writing {
            threads: Threads::One,
            budget: MIN_WRITER_BUDGET,
        };
        let (mut writer, _) = open_writer(&index, writing, true).expect("writer");
        let queue = QueueBudget::new(QueueBudget::MIN_BYTES);
        for segment in 0..24 {
            for n in 0..400 {
                let text: String = (0..60)
                    .map(|w| format!("w{} ", (n * 61 + w) % 997))
                    .collect();
                writer
                    .add_document(
                        queue.admit(doc!(body => format!("heron {segment} {n} {text}")), 0),
                    )
                    .expect("add");
            }
            // (Each commit a segment, as each flush of a full buffer is.)
            writer.commit().expect("commit");
        }
        commit(writer, &index, "build 1", true).expect("the final commit and merge");
        assert_eq!(index.searchable_segment_ids().expect("segments").len(), 1);
        let reader = index.reader().expect("reader");
        assert_eq!(reader.searcher().num_docs(), 24 * 400);
    }
}
