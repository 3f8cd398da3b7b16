//! `crawler import`: WARC files into the store, each `response` record stored as the crawl
//! stores a fetched answer (see the [module](super) docs). Every file is checked to be a
//! WARC before the store is opened for writing (its writer lock taken) and anything is
//! written; then the files are read in the order given, a record at a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use shared::config::CrawlerConfig;
use shared::record::FrontierEntry;
use shared::{CanonicalUrl, StoreError};

use warc::{MAX_HEADER_BYTES, Record, RecordType, layout, parse_ms, read_records};

use super::WarcError;
use super::http::{Answer, read_answer};
use super::problem::{ImportDamage, Problem};
use crate::fetch::Fetched;
use crate::kind::{Body, Kinds, ReadContext, ReadPlan};
use crate::page::{self, Reading};
use crate::params::ParamStrip;
use crate::revisit::{RevisitPolicy, Visit};
use crate::scope::Scope;
use crate::store::{PageCommit, PageStore};

/// Room for an archived answer's HTTP head beside its body, in a record's limit.
const HTTP_HEAD_ROOM: u64 = 64 * 1024;

/// What an import read, stored and skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Records read whole.
    pub records: u64,
    /// Answers stored as pages (a later one for a URL replacing an earlier one).
    pub stored: u64,
    /// Of those, pages stored as copies of another stored page (`duplicate_of`).
    pub copies: u64,
    /// Records skipped, by why: their type (`request`, `metadata`, ...), `robots.txt`, `not
    /// HTTP`, `not a crawlable URL`, `segmented`.
    pub skipped: BTreeMap<&'static str, u64>,
    /// Damaged records and members, reported and skipped.
    pub damaged: u64,
}

/// The block limit of a record: the body limit and room for its headers.
pub(super) fn record_limit(config: &CrawlerConfig) -> u64 {
    config.max_body_bytes as u64 + HTTP_HEAD_ROOM + MAX_HEADER_BYTES as u64
}

/// Imports `files` into the store of `data`, as `config` reads pages (body limit, robots
/// token, `strip_params`, revisit schedule); each damaged record is handed to `report` with
/// its file, and skipped.
pub fn import(
    data: &Path,
    files: &[PathBuf],
    config: &CrawlerConfig,
    report: &mut dyn FnMut(&Path, &Problem),
) -> Result<ImportSummary, WarcError> {
    let layouts = files
        .iter()
        .map(|file| layout(file))
        .collect::<Result<Vec<_>, _>>()?;
    let mut importer = Importer {
        store: PageStore::open(data)?,
        kinds: Kinds::new(config, None),
        runtime: Readers::new()?,
        config,
        params: ParamStrip::new(config),
        revisit: RevisitPolicy::new(config),
        summary: ImportSummary::default(),
    };
    for (file, layout) in files.iter().zip(layouts) {
        read_records::<WarcError>(file, layout, record_limit(config), &mut |at, item| {
            let damage = match item {
                Ok(record) => match importer.record(&record)? {
                    Ok(()) => return Ok(()),
                    Err(damage) => damage,
                },
                Err(damage) => ImportDamage::Record(damage),
            };
            importer.summary.damaged += 1;
            report(file, &Problem { at, damage });
            Ok(())
        })?;
    }
    importer.store.flush()?;
    Ok(importer.summary)
}

/// The store and what storing a page needs.
struct Importer<'a> {
    store: PageStore,
    /// The readers of every kind of content, as a crawl has them.
    kinds: Kinds,
    /// The runtime the readers run on.
    runtime: Readers,
    config: &'a CrawlerConfig,
    params: ParamStrip,
    revisit: RevisitPolicy,
    summary: ImportSummary,
}

impl Importer<'_> {
    /// Stores or skips one whole record; `Err` inside for a response that cannot be read.
    fn record(&mut self, record: &Record) -> Result<Result<(), ImportDamage>, StoreError> {
        self.summary.records += 1;
        let skipped = match self.response_url(record) {
            Ok(url) => match read_answer(&record.block, self.config.max_body_bytes) {
                Ok(answer) => {
                    let at_ms = record.header.get("WARC-Date").and_then(parse_ms);
                    self.store(&url, answer, at_ms.unwrap_or_else(shared::now_ms))?;
                    return Ok(Ok(()));
                }
                Err(error) => return Ok(Err(ImportDamage::Http(error))),
            },
            Err(why) => why,
        };
        *self.summary.skipped.entry(skipped).or_default() += 1;
        Ok(Ok(()))
    }

    /// The URL of a response record to import, or why the record is skipped.
    fn response_url(&self, record: &Record) -> Result<CanonicalUrl, &'static str> {
        let header = &record.header;
        match header.record_type() {
            RecordType::Response => {}
            RecordType::Request => return Err("request"),
            RecordType::Warcinfo => return Err("warcinfo"),
            RecordType::Other => return Err(other_type(header.get("WARC-Type"))),
        }
        if header.get("WARC-Segment-Number").is_some() {
            return Err("segmented");
        }
        let media = header.get("Content-Type").unwrap_or_default();
        if !media
            .trim()
            .to_ascii_lowercase()
            .starts_with("application/http")
        {
            return Err("not HTTP");
        }
        let url = header
            .target_uri()
            .and_then(|uri| CanonicalUrl::parse(uri).ok())
            .ok_or("not a crawlable URL")?;
        if url.as_url().path() == "/robots.txt" {
            return Err("robots.txt");
        }
        Ok(self.params.apply(url))
    }

    /// Stores an answer as the crawl stores a fetched one: read by its kind's reader as a
    /// fetch reads it (see [`crate::kind`]), then [`page::answered`] and one
    /// [`PageStore::commit_page`], its links not queued.
    fn store(&mut self, url: &CanonicalUrl, answer: Answer, at_ms: u64) -> Result<(), StoreError> {
        let content_type = answer
            .header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let kinds = self
            .config
            .kinds_for(url.as_url().host_str().unwrap_or_default());
        let hint = self.kinds.hint(&content_type);
        let readable =
            (200..300).contains(&answer.status) && self.kinds.plan(hint, kinds) != ReadPlan::Skip;
        let mut body = Body {
            bytes: answer.body,
            content_type: content_type.clone(),
            truncated: answer.truncated,
        };
        let kind = if readable {
            self.kinds.settle(hint, kinds, &mut body)
        } else {
            None
        };
        let body_len = if kind.is_some() {
            body.bytes.len() as u64
        } else {
            0
        };
        let truncated = body.truncated;
        let read = kind.and_then(|kind| self.kinds.reader(kind)).map(|reader| {
            let context = ReadContext {
                url: url.clone(),
                agent: self.config.agent.clone(),
            };
            // Readers run on the blocking pool or in a child process: waited for here, on
            // the import's own thread (see `crawler import` in `cli.rs`).
            // In an async block: a reader starts its work when called, inside the runtime.
            self.runtime
                .block_on(async move { reader.read(body, context).await })
        });
        let fetched = Fetched {
            status: answer.status,
            text: None,
            body_len,
            headers: answer.headers,
            raw: Vec::new(),
            kind,
            content_type,
            truncated,
        };
        let agent = self.config.agent.as_str();
        let entry = FrontierEntry::page(url.as_str(), 0);
        let reading = Reading {
            agent,
            params: &self.params,
        };
        let store = &self.store;
        let mut stored =
            page::answered(url, &entry, fetched, read, at_ms, reading, |hash, near| {
                store.content_owner(hash, near, url.as_str())
            })?;
        // The schedule counts from the import: a crawl right after it fetches nothing again.
        let previous = self.store.revisit(url.as_str())?;
        let revisit = self.revisit.after(
            previous.as_ref(),
            Visit::Fetched(&stored.record),
            shared::now_ms(),
        );
        let waiting = self.store.waiting_key(url)?;
        let images = page::page_images(&stored, &Scope::everything(), self.config);
        self.store.commit_page(PageCommit {
            done: waiting.as_deref(),
            page: &mut stored.record,
            outlinks: &stored.outlinks,
            discovered: Vec::new(),
            revisit: &revisit,
            simhash: stored.simhash,
            failed_before: 0,
            kind: stored.extra.commit(images.as_ref()),
            rendered: None,
            static_text_hash: None,
        })?;
        self.summary.stored += 1;
        if stored.record.duplicate_of.is_some() {
            self.summary.copies += 1;
        }
        Ok(())
    }
}

/// The name a skipped record of another type is counted under.
fn other_type(name: Option<&str>) -> &'static str {
    let name = name.unwrap_or_default().trim().to_ascii_lowercase();
    [
        "metadata",
        "resource",
        "revisit",
        "conversion",
        "continuation",
    ]
    .into_iter()
    .find(|known| *known == name)
    .unwrap_or("other type")
}

/// Where the import waits for a kind's reader: the runtime it was called from (on one of its
/// blocking threads, as `crawler import` calls it), or a runtime of its own when it was
/// called outside any.
enum Readers {
    /// The caller's runtime.
    Caller(tokio::runtime::Handle),
    /// A runtime of the import's own, on this thread.
    Own(tokio::runtime::Runtime),
}

impl Readers {
    fn new() -> Result<Self, WarcError> {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            return Ok(Readers::Caller(handle));
        }
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map(Readers::Own)
            .map_err(WarcError::Runtime)
    }

    fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        match self {
            Readers::Caller(handle) => handle.block_on(future),
            Readers::Own(runtime) => runtime.block_on(future),
        }
    }
}
