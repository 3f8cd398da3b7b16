//! [`ImageIndex`]: a generation's image index (`gen-NNNNNN/images/`, the contract of
//! `index_format::images`), opened beside its page index by [`crate::shard::Shard`], so the
//! two are always of one generation and switch together.
//!
//! An image index is optional: a generation without one (built before image search, or from a
//! crawl with images off) has no images, and image searches over it answer empty. One that
//! cannot be opened (damaged, of another schema) is treated the same, with a warning: the
//! page index it sits beside still serves.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use index_format::ImageFields;
use tantivy::{Index, IndexReader, ReloadPolicy};

/// An opened image index.
pub(crate) struct ImageIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: ImageFields,
}

/// Why a generation's image index could not be opened.
#[derive(Debug, thiserror::Error)]
enum ImageIndexError {
    /// tantivy could not open or read it.
    #[error("image index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// It lacks a field of this version's image schema.
    #[error("image index: {0}")]
    Schema(#[from] index_format::Error),
}

/// The file whose presence makes `images/` an index, and whose rewrite is a commit.
fn meta_file(generation_dir: &Path) -> PathBuf {
    index_format::images_dir(generation_dir).join("meta.json")
}

/// When the image index of the generation in `generation_dir` last committed (`None`: it has
/// none): how a generation loaded without images finds that an incremental build wrote them.
pub(crate) fn stamp(generation_dir: &Path) -> Option<SystemTime> {
    std::fs::metadata(meta_file(generation_dir))
        .and_then(|m| m.modified())
        .ok()
}

impl ImageIndex {
    /// The image index of the generation in `generation_dir`: `None` when it has none, or
    /// when it cannot be opened (logged).
    pub(crate) fn open(generation_dir: &Path) -> Option<Self> {
        let dir = index_format::images_dir(generation_dir);
        if !meta_file(generation_dir).is_file() {
            return None;
        }
        match Self::try_open(&dir) {
            Ok(images) => Some(images),
            Err(error) => {
                tracing::warn!(
                    dir = %dir.display(),
                    %error,
                    "image index left unloaded: image searches answer empty"
                );
                None
            }
        }
    }

    fn try_open(dir: &Path) -> Result<Self, ImageIndexError> {
        let index = Index::open_in_dir(dir)?;
        index_format::tokenize::register(&index);
        let fields = ImageFields::new(&index.schema())?;
        // Followed like the page index: an incremental build that rewrites the image index
        // inside the loaded generation (in one commit) is seen without a restart.
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .try_into()?;
        Ok(Self {
            index,
            reader,
            fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_without_an_images_dir_has_no_image_index() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(ImageIndex::open(dir.path()).is_none());
    }

    #[test]
    fn an_images_dir_of_another_schema_is_left_unloaded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let images = index_format::images_dir(dir.path());
        std::fs::create_dir_all(&images).expect("images dir");
        // The page schema where the image schema belongs.
        Index::create_in_dir(&images, index_format::schema()).expect("index");
        assert!(ImageIndex::open(dir.path()).is_none());
    }

    #[test]
    fn an_image_index_of_the_contract_schema_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let images = index_format::images_dir(dir.path());
        std::fs::create_dir_all(&images).expect("images dir");
        Index::create_in_dir(&images, index_format::image_schema()).expect("index");
        let opened = ImageIndex::open(dir.path()).expect("opened");
        assert_eq!(opened.reader.searcher().num_docs(), 0);
    }
}
