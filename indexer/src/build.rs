//! Builds: generations, incremental updates and the atomic switch.
//!
//! `DATA/index/gen-NNNNNN/` holds one tantivy index and `docstate.json`, the hash of every
//! document it holds; `DATA/index/CURRENT` names the generation in use and is replaced
//! atomically (write, fsync, rename), so a reader never sees a half-built generation.
//! A full build writes a new generation and switches; an incremental build updates the
//! current generation in place with one commit, touching only documents whose hash changed.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use shared::record::PageRecord;
use shared::{StoreReader, url::CanonicalUrl};
use tantivy::{Index, IndexWriter, TantivyDocument, Term};
use tracing::info;
use xxhash_rust::xxh3::Xxh3;

use crate::linkgraph::{Inbound, LinkGraph, UrlMap};
use crate::schema::{IndexFields, schema};
use crate::text;
use crate::{BuildMode, BuildSummary, Error};

/// The file naming the current generation.
pub fn current_generation_marker(data: &Path) -> PathBuf {
    index_dir(data).join("CURRENT")
}

fn index_dir(data: &Path) -> PathBuf {
    data.join("index")
}

const STATE_FILE: &str = "docstate.json";
/// Memory for tantivy's indexing buffers.
const WRITER_HEAP: usize = 256 * 1024 * 1024;

/// The generation `CURRENT` names, if any.
pub fn current_generation(data: &Path) -> Result<Option<String>, Error> {
    match std::fs::read_to_string(current_generation_marker(data)) {
        Ok(name) => Ok(Some(name.trim().to_string()).filter(|n| !n.is_empty())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(current_generation_marker(data), e)),
    }
}

/// Why a page gets no document of its own.
enum Skip {
    NoIndex,
    Other,
}

fn skip_reason(page: &PageRecord) -> Option<Skip> {
    if page.error.is_some() || page.redirect_to.is_some() || !page.is_html_page() {
        Some(Skip::Other)
    } else if page.robots.noindex {
        Some(Skip::NoIndex)
    } else {
        None
    }
}

/// Builds or updates the index of `data`.
pub fn build(data: &Path, mode: BuildMode) -> Result<BuildSummary, Error> {
    let started = Instant::now();
    let store = StoreReader::open(data)?;
    let mut summary = BuildSummary::default();

    // Pass 1: which pages are documents, and under which URL.
    let mut urls = UrlMap::default();
    let mut by_hash: HashMap<u64, Vec<String>> = HashMap::new();
    let mut facts: HashMap<String, u64> = HashMap::new(); // url -> hash of its record's indexable facts
    for page in store.pages() {
        let page = page?;
        if let Some(target) = &page.redirect_to {
            urls.redirects.insert(page.url.clone(), target.clone());
        }
        match skip_reason(&page) {
            Some(Skip::NoIndex) => summary.skipped_noindex += 1,
            Some(Skip::Other) => summary.skipped_other += 1,
            None => {
                facts.insert(page.url.clone(), record_hash(&page));
                by_hash.entry(page.content_hash).or_default().push(page.url);
            }
        }
    }
    for group in by_hash.into_values() {
        let Some(rep) = group.iter().min_by(|a, b| a.len().cmp(&b.len()).then(a.cmp(b))).cloned() else { continue };
        summary.skipped_duplicates += group.len() as u64 - 1;
        for url in group {
            urls.representative.insert(url, rep.clone());
        }
    }
    let graph = LinkGraph::build(&store, &urls)?;

    // What every document will hold, as a hash.
    let mut wanted: BTreeMap<String, u64> = BTreeMap::new();
    for (url, rep) in &urls.representative {
        if url == rep {
            let inbound = graph.inbound(url);
            wanted.insert(url.clone(), doc_hash(facts[url], &inbound));
        }
    }

    let current = current_generation(data)?;
    let (generation, previous_state, fresh) = match (mode, current) {
        (BuildMode::Incremental, Some(name)) if index_dir(data).join(&name).is_dir() => {
            let state = read_state(&index_dir(data).join(&name))?;
            (name, state, false)
        }
        (_, current) => (next_generation_name(current.as_deref()), BTreeMap::new(), true),
    };
    let gen_dir = index_dir(data).join(&generation);
    let index = if fresh {
        if gen_dir.exists() {
            std::fs::remove_dir_all(&gen_dir).map_err(|e| Error::io(&gen_dir, e))?;
        }
        std::fs::create_dir_all(&gen_dir).map_err(|e| Error::io(&gen_dir, e))?;
        Index::create_in_dir(&gen_dir, schema())?
    } else {
        Index::open_in_dir(&gen_dir)?
    };
    let fields = IndexFields::new(&index.schema())?;
    let mut writer: IndexWriter<TantivyDocument> = index.writer(WRITER_HEAP)?;

    for url in previous_state.keys().filter(|url| !wanted.contains_key(*url)) {
        writer.delete_term(Term::from_field_text(fields.url, url));
        summary.deleted += 1;
    }
    let changed: Vec<&String> = wanted.iter().filter(|(url, hash)| previous_state.get(*url) != Some(hash)).map(|(url, _)| url).collect();
    summary.unchanged = (wanted.len() - changed.len()) as u64;
    summary.indexed = changed.len() as u64;
    info!(generation, changed = changed.len(), deleted = summary.deleted, "indexing");

    // Pass 2: the changed documents, text extracted on every core.
    let queue = Mutex::new(changed.into_iter());
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(8);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some(url) = next else { break };
                    let result = index_page(&store, &writer, &fields, url, &graph.inbound(url), fresh);
                    if let Err(e) = result {
                        if let Ok(mut slot) = failure.lock() {
                            slot.get_or_insert(e);
                        }
                        break;
                    }
                }
            });
        }
    });
    if let Some(error) = failure.into_inner().ok().flatten() {
        return Err(error);
    }
    writer.commit()?;
    writer.wait_merging_threads()?;
    write_state(&gen_dir, &wanted)?;
    if fresh {
        switch_to(data, &generation)?;
        remove_old_generations(data, &generation)?;
    }
    summary.total_docs = wanted.len() as u64;
    summary.generation = generation;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

fn index_page(
    store: &StoreReader,
    writer: &IndexWriter<TantivyDocument>,
    fields: &IndexFields,
    url: &str,
    inbound: &Inbound,
    fresh: bool,
) -> Result<(), Error> {
    let Some(page) = store.page(url)? else { return Ok(()) };
    let html = page.body.decompress()?;
    let text = text::extract(&html);
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.url, url);
    doc.add_text(fields.url_text, url_words(url));
    if let Ok(canonical) = CanonicalUrl::parse(url) {
        doc.add_text(fields.host, canonical.host());
    }
    let title = if text.title.is_empty() { page.title.as_str() } else { text.title.as_str() };
    doc.add_text(fields.title, title);
    doc.add_text(fields.headings, &text.headings);
    doc.add_text(fields.body, &text.body);
    doc.add_text(fields.description, &page.description);
    for anchor in &inbound.anchors {
        doc.add_text(fields.anchor, anchor);
    }
    doc.add_u64(fields.inlinks, inbound.count);
    doc.add_u64(fields.fetched_at, page.fetched_at_ms);
    doc.add_u64(fields.nosnippet, u64::from(page.robots.nosnippet));
    if !fresh {
        writer.delete_term(Term::from_field_text(fields.url, url));
    }
    writer.add_document(doc)?;
    Ok(())
}

/// The URL as words: `https://doc.rust-lang.org/std/collections/struct.HashMap.html` ->
/// `doc rust lang org std collections struct HashMap html`.
fn url_words(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

fn record_hash(page: &PageRecord) -> u64 {
    let mut h = Xxh3::new();
    for part in [page.url.as_str(), page.title.as_str(), page.description.as_str()] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h.update(&page.content_hash.to_le_bytes());
    h.update(&page.body.compressed_len().to_le_bytes());
    h.update(&[u8::from(page.robots.nosnippet)]);
    h.digest()
}

fn doc_hash(record: u64, inbound: &Inbound) -> u64 {
    let mut h = Xxh3::new();
    h.update(&record.to_le_bytes());
    h.update(&inbound.count.to_le_bytes());
    for anchor in &inbound.anchors {
        h.update(anchor.as_bytes());
        h.update(&[0]);
    }
    h.digest()
}

fn next_generation_name(current: Option<&str>) -> String {
    let n = current.and_then(|c| c.strip_prefix("gen-")).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
    format!("gen-{:06}", n + 1)
}

fn read_state(gen_dir: &Path) -> Result<BTreeMap<String, u64>, Error> {
    let path = gen_dir.join(STATE_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::State(path.display().to_string(), e.to_string())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(Error::io(path, e)),
    }
}

fn write_state(gen_dir: &Path, state: &BTreeMap<String, u64>) -> Result<(), Error> {
    let bytes = serde_json::to_vec(state).map_err(|e| Error::State(gen_dir.display().to_string(), e.to_string()))?;
    write_atomically(&gen_dir.join(STATE_FILE), &bytes)
}

/// Writes a file so readers see the old or the new content, never a part.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

fn switch_to(data: &Path, generation: &str) -> Result<(), Error> {
    write_atomically(&current_generation_marker(data), generation.as_bytes())
}

/// Keeps the current generation and the one before it (a searchd may still be reading it).
fn remove_old_generations(data: &Path, current: &str) -> Result<(), Error> {
    let dir = index_dir(data);
    let mut generations: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("gen-") && name.as_str() < current)
        .collect();
    generations.sort();
    generations.pop(); // the previous one stays
    for name in generations {
        let path = dir.join(name);
        std::fs::remove_dir_all(&path).map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_words_split_the_url() {
        assert_eq!(
            url_words("https://doc.rust-lang.org/std/collections/struct.HashMap.html"),
            "doc rust lang org std collections struct HashMap html"
        );
    }

    #[test]
    fn generation_names_count_up() {
        assert_eq!(next_generation_name(None), "gen-000001");
        assert_eq!(next_generation_name(Some("gen-000041")), "gen-000042");
    }
}
