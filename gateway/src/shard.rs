//! [`Shard`]: one index directory (`DATA/index`, or a partition's `DATA/partitions/p-NNN/index`)
//! with the generation loaded from it, and how it follows new generations.
//!
//! The loaded generation sits behind a lock that is only taken to clone an `Arc`, so a query
//! never waits for a reload and a reload never waits for a query: a query that started on the
//! old generation finishes on it. [`Shard::refresh`] reopens when `CURRENT` names another
//! generation or was rewritten; within a generation, tantivy's reader follows the indexer's
//! commits by itself (`ReloadPolicy::OnCommitWithDelay`). A generation's image index is
//! opened with it, so both switch together; so are its completions, read again when a build
//! rewrites them.

mod image_index;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use index_format::IndexFields;
use index_format::completions::{Completions, completions_file};
use tantivy::{IndexReader, ReloadPolicy};

use crate::columns::ColumnCache;
use crate::search_error::SearchError;
use image_index::ImageIndex;

/// The loaded generation, in the figures `/status` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFacts {
    /// Its name (`gen-NNNNNN`; for several shards, `p-NNN/gen-NNNNNN` of each, by commas).
    pub generation: String,
    /// Documents in it, as of the last commit the reader saw.
    pub docs: u64,
}

/// Decompressed blocks of the stored documents kept per segment (tantivy's default is 100):
/// the pages a query log shows again and again are read without decompressing their block
/// again. A block is 16 KiB or one document (up to the body's first 32 KiB and a little
/// more), so at most about 40 MiB per segment.
const DOC_STORE_BLOCKS: usize = 1_000;

/// Generations opened by this process so far: each [`Loaded`] is numbered.
static OPENED: AtomicU64 = AtomicU64::new(0);

/// A generation opened for searching.
pub(crate) struct Loaded {
    pub(crate) generation: String,
    /// Its number among the generations this process opened, unique: what was computed
    /// over it (a kept answer) names it so.
    pub(crate) serial: u64,
    marker_stamp: Option<SystemTime>,
    pub(crate) index: tantivy::Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: IndexFields,
    /// The generation's image index (`gen-NNNNNN/images/`), if it has one.
    pub(crate) images: Option<ImageIndex>,
    /// When the image index's `meta.json` was written, as of opening (`None`: none).
    images_stamp: Option<SystemTime>,
    /// The fast-field columns of its latest searcher.
    pub(crate) columns: ColumnCache,
    /// The phrases `/suggest` offers (`gen-NNNNNN/completions`), if it has them.
    pub(crate) completions: Option<Completions>,
    /// When the completions file was written, as of opening (`None`: none).
    completions_stamp: Option<SystemTime>,
}

/// One index shard: a data directory and the generation of its index being served.
pub(crate) struct Shard {
    data: PathBuf,
    loaded: RwLock<Option<Arc<Loaded>>>,
}

impl Shard {
    /// The shard of data directory `data`, nothing loaded yet.
    pub(crate) fn new(data: &Path) -> Self {
        Self {
            data: data.to_path_buf(),
            loaded: RwLock::new(None),
        }
    }

    /// Its data directory.
    pub(crate) fn data(&self) -> &Path {
        &self.data
    }

    /// Opens the generation `CURRENT` names if it is not the one loaded (or `CURRENT` was
    /// rewritten, or an image index appeared in a generation loaded without one); true when
    /// it switched. On error the loaded generation stays in use. A
    /// generation lacking a field of this version's schema is left unloaded, with a warning.
    pub(crate) fn refresh(&self) -> Result<bool, SearchError> {
        let marker = index_format::current_generation_marker(&self.data);
        let stamp = std::fs::metadata(&marker).and_then(|m| m.modified()).ok();
        let Some(current) = index_format::current_generation(&self.data)? else {
            return Ok(false);
        };
        // A generation loaded without images gets them when an incremental build writes
        // its first image index in place; one loaded with them follows their commits.
        let generation_dir = index_format::generation_dir(&self.data, &current);
        let images_stamp = image_index::stamp(&generation_dir);
        // Completions are rewritten whole after each build's commit: read again when changed.
        let completions_stamp = modified(&completions_file(&generation_dir));
        if let Some(loaded) = self.current()
            && loaded.generation == current
            && loaded.marker_stamp == stamp
            && (loaded.images.is_some() || loaded.images_stamp == images_stamp)
            && loaded.completions_stamp == completions_stamp
        {
            return Ok(false);
        }
        let opened = match index_format::open_current(&self.data) {
            Ok(Some(opened)) => opened,
            Ok(None) => return Ok(false),
            // A generation an older version wrote (the demo run again after an upgrade, a
            // server started before the rebuild): nothing of it is loaded, and the next
            // generation is, when the indexer writes it.
            Err(index_format::Error::MissingField(field)) => {
                tracing::warn!(
                    generation = %current,
                    data = %self.data.display(),
                    %field,
                    "index generation left unloaded: written by an older version; run `indexer build --full`"
                );
                return Ok(false);
            }
            Err(error) => return Err(error.into()),
        };
        let reader = opened
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .doc_store_cache_num_blocks(DOC_STORE_BLOCKS)
            .try_into()?;
        let images = ImageIndex::open(&index_format::generation_dir(
            &self.data,
            &opened.generation,
        ));
        let generation_dir = index_format::generation_dir(&self.data, &opened.generation);
        let completions = Completions::open(&generation_dir).unwrap_or_else(|error| {
            tracing::warn!(%error, "completions left unread: /suggest offers nothing from this shard");
            None
        });
        let loaded = Loaded {
            serial: OPENED.fetch_add(1, Ordering::Relaxed),
            completions,
            completions_stamp,
            images,
            images_stamp,
            columns: ColumnCache::default(),
            generation: opened.generation,
            marker_stamp: stamp,
            index: opened.index,
            reader,
            fields: opened.fields,
        };
        tracing::info!(generation = %loaded.generation, data = %self.data.display(), "index generation loaded");
        let mut slot = self.loaded.write().unwrap_or_else(|p| p.into_inner());
        *slot = Some(Arc::new(loaded));
        Ok(true)
    }

    /// The loaded generation, if any.
    pub(crate) fn current(&self) -> Option<Arc<Loaded>> {
        self.loaded
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The loaded generation and its size, or `None` before the first index.
    pub(crate) fn facts(&self) -> Option<IndexFacts> {
        self.current().map(|l| IndexFacts {
            generation: l.generation.clone(),
            docs: l.reader.searcher().num_docs(),
        })
    }
}

/// When the file at `path` was last written, if it exists.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The shards of a data directory: one per partition under `DATA/partitions` when there are
/// partitions, else `DATA` itself.
pub(crate) fn shards_of(data: &Path) -> Result<Vec<Shard>, SearchError> {
    let partitions = shared::partition::local_partitions(data)
        .map_err(|e| SearchError::Index(tantivy::TantivyError::from(e)))?;
    if partitions.is_empty() {
        return Ok(vec![Shard::new(data)]);
    }
    Ok(partitions.iter().map(|(_, dir)| Shard::new(dir)).collect())
}

/// What the files of a generation directory say.
pub(crate) struct GenerationFiles {
    /// Their total size.
    pub(crate) bytes: u64,
    /// When `meta.json` (rewritten by every commit) was last written, ms since the epoch.
    pub(crate) last_commit: Option<u64>,
}

/// Sizes up a generation directory: the page index's files and those of the image index in
/// its `images/` folder (tantivy writes no deeper folders); the last commit is the page
/// index's.
pub(crate) fn generation_files(dir: &std::path::Path) -> GenerationFiles {
    let mut bytes = 0;
    let mut last_commit = None;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if meta.is_dir() {
            bytes += files_bytes(&entry.path());
            continue;
        }
        bytes += meta.len();
        if entry.file_name() == "meta.json" {
            last_commit = meta
                .modified()
                .ok()
                .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|since| since.as_millis() as u64);
        }
    }
    GenerationFiles { bytes, last_commit }
}

/// The bytes of the files directly in `dir`.
fn files_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.metadata().ok())
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len())
        .sum()
}
