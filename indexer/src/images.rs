//! The image index of a generation, `gen-NNNNNN/images/` (its schema and fields are
//! `index_format::images`, the contract with searchd's image search): one document per
//! stored image URL whose page record is a 2xx answer with an image media record, unless it
//! asked for `noindex` (`X-Robots-Tag`) or is marked a copy (`duplicate_of`).
//!
//! An image is found by what the pages showing it say of it ([`Showings`], the store's
//! `images` family inverted once per build, over every shard's store): their alt texts and
//! titles, the words around it, their titles, and by its file name's words. `page_url` is the
//! page showing it with the most in-links (from the build's link graph), `pages` how many
//! show it; the numbers are its media record's.
//!
//! Every build writes the whole image index of the generation it writes, in ONE tantivy
//! commit: a full build into the new generation before `CURRENT` switches (readers see a
//! generation's pages and images together); an incremental build into the current generation,
//! in place (delete all, add, commit), so a reader sees the old image index or the new one,
//! never half. A generation written before image indexes existed gets one at its next
//! incremental build; until then readers find no `images/` and search no images.
//!
//! [`showings`] inverts the store's `images` family, keeping no text; [`document`] reads an
//! image's texts back from the store and makes its document. `tests` builds image indexes
//! from real stores, full, incremental and sharded.

mod document;
mod showings;
#[cfg(test)]
mod tests;

use std::path::Path;

use index_format::{ImageFields, image_schema, images_dir};
use shared::ContentKind;
use shared::docplan::DocPlan;
use shared::record::{MediaRecord, PageRecord};
use tantivy::{Index, IndexWriter, TantivyDocument};
use tracing::warn;

use crate::Error;
use crate::source::Source;
use document::{Gatherer, ImageFacts, image_document};
pub(crate) use showings::Showings;

/// The image index writer's memory (one indexing thread; tantivy's floor is 15 MB).
const WRITER_HEAP: usize = 32 << 20;

/// What the image index does with a stored image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ImagePage {
    /// A 2xx image: a document.
    Indexable,
    /// It asked not to be indexed (`X-Robots-Tag: noindex`).
    NoIndex,
    /// Stored as a copy of another URL's image.
    Copy,
    /// Not an image answered with 2xx (an error, a redirect, another kind by now).
    NotServed,
}

impl ImagePage {
    /// Classifies the page record of a URL with an image media record.
    pub(crate) fn of(page: &PageRecord) -> Self {
        if !(200..300).contains(&page.status)
            || page.error.is_some()
            || page.redirect_to.is_some()
            || page.kind != ContentKind::Image
        {
            ImagePage::NotServed
        } else if page.robots.noindex {
            ImagePage::NoIndex
        } else if page.duplicate_of.is_some() {
            ImagePage::Copy
        } else {
            ImagePage::Indexable
        }
    }
}

/// What a build takes to write a shard's image index.
#[derive(Clone, Copy)]
pub(crate) struct ImageInputs<'a> {
    /// Every shard's store, in shard order.
    pub(crate) sources: &'a [&'a Source],
    /// The pages showing each image, over every shard.
    pub(crate) showings: &'a Showings,
    /// Which documents there are (the best page's URL is its document's).
    pub(crate) plan: &'a DocPlan,
}

/// Writes the image index of shard `shard` into the generation at `generation_dir` (a new
/// generation when `fresh`, else rebuilt in place) in one commit. Returns the images indexed.
pub(crate) fn write_images(
    generation_dir: &Path,
    fresh: bool,
    shard: usize,
    inputs: ImageInputs<'_>,
) -> Result<u64, Error> {
    let Some(source) = inputs.sources.get(shard) else {
        return Ok(0);
    };
    let index = open_or_create(&images_dir(generation_dir), fresh)?;
    let fields = ImageFields::new(&index.schema())?;
    let mut writer: IndexWriter<TantivyDocument> = index.writer_with_num_threads(1, WRITER_HEAP)?;
    if !fresh {
        writer.delete_all_documents()?;
    }
    let showings = inputs.showings;
    let mut gatherer = Gatherer::new(inputs.sources, showings);
    let mut indexed = 0u64;
    for item in source.media() {
        let (url, media) = item?;
        let MediaRecord::Image(info) = media else {
            continue;
        };
        let Some(page) = source.page(&url)? else {
            continue;
        };
        if ImagePage::of(&page) != ImagePage::Indexable {
            continue;
        }
        let shown = showings.of(&url);
        let best = shown.and_then(|shown| showings.best(shown));
        let page_url = best
            .and_then(|at| showings.page(at.page))
            .map_or("", |showing| inputs.plan.doc_url(showing.doc));
        let text = match shown {
            Some(shown) => gatherer.text(&url, shown, best)?,
            None => Default::default(),
        };
        let facts = ImageFacts {
            url: &url,
            info: &info,
            fetched_at_ms: page.fetched_at_ms,
            page_url,
            pages: shown.map_or(0, |shown| shown.pages),
        };
        writer.add_document(image_document(&fields, &facts, &text))?;
        indexed += 1;
    }
    writer.commit()?;
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;
    Ok(indexed)
}

/// The image index at `dir`: a new one when `fresh`, else the one there, or a new one in its
/// place when it is missing or of another schema.
fn open_or_create(dir: &Path, fresh: bool) -> Result<Index, Error> {
    if !fresh && dir.join("meta.json").is_file() {
        match Index::open_in_dir(dir) {
            Ok(index) if index.schema() == image_schema() => {
                index_format::tokenize::register(&index);
                return Ok(index);
            }
            _ => {
                warn!(dir = %dir.display(), "replacing an image index that does not open or has another schema");
                std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let index = Index::create_in_dir(dir, image_schema())?;
    index_format::tokenize::register(&index);
    Ok(index)
}
