//! A stored page's own records as one write puts them: the page record, its links, what its
//! kind's reader found and what rendering it found. The crawler's page commit adds them to
//! its batch beside its frontier and duplicate index entries; the indexer's test store writes
//! pages through the same function, so that what its tests read is what the crawler writes.

use rocksdb::{DB, WriteBatch};

use super::{Cf, StoreError, cf_handle};
use crate::record::{
    MediaRecord, Outlinks, PageImages, PageRecord, Record, RenderedPage, Thumbnail,
};

/// The records keyed by (or stored for) one page, written in one batch.
pub struct PageRecords<'a> {
    /// The page record; its [`PageRecord::change`] number is the writer's to set first.
    pub page: &'a PageRecord,
    /// Its links.
    pub outlinks: &'a Outlinks,
    /// What its content kind's reader added.
    pub kind: KindCommit<'a>,
    /// What rendering it in a browser found; `None` (not rendered this time) removes a render
    /// stored before, so a page crawled again without rendering keeps no stale one.
    pub rendered: Option<&'a RenderedPage>,
}

/// The records a content kind's reader adds to a page's write (none for a plain page).
#[derive(Clone, Copy, Default)]
pub struct KindCommit<'a> {
    /// The page's `media` record (images, PDFs); `None` removes one stored before.
    pub media: Option<&'a MediaRecord>,
    /// A thumbnail, and the content hash it is stored under.
    pub thumbnail: Option<(u64, &'a Thumbnail)>,
    /// The images the page shows; `None` removes the list stored before.
    pub images: Option<&'a PageImages>,
}

impl PageRecords<'_> {
    /// Adds the records to `batch`. `stored_before` says whether the URL already has a page
    /// record: only then can it have records the new answer lacks, which are removed.
    ///
    /// A render is removed only when one is stored: a delete leaves a tombstone that the
    /// indexer's walk over the family steps over, and every revisit of an unrendered page
    /// would leave one. That costs a read, and only for a page stored before.
    pub fn put(
        &self,
        db: &DB,
        batch: &mut WriteBatch,
        stored_before: bool,
    ) -> Result<(), StoreError> {
        let key = self.page.url.as_bytes();
        batch.put_cf(cf_handle(db, Cf::Pages), key, self.page.encode());
        batch.put_cf(cf_handle(db, Cf::Outlinks), key, self.outlinks.encode());
        put_or_remove(db, batch, Cf::Media, key, self.kind.media, stored_before);
        if let Some((hash, thumbnail)) = self.kind.thumbnail {
            batch.put_cf(
                cf_handle(db, Cf::Thumbs),
                hash.to_be_bytes(),
                thumbnail.encode(),
            );
        }
        put_or_remove(db, batch, Cf::Images, key, self.kind.images, stored_before);
        let rendered = cf_handle(db, Cf::Rendered);
        match self.rendered {
            Some(record) => batch.put_cf(rendered, key, record.encode()),
            None if stored_before && db.get_pinned_cf(rendered, key)?.is_some() => {
                batch.delete_cf(rendered, key)
            }
            None => {}
        }
        Ok(())
    }
}

/// Puts `record` under `key` in `cf`, or, for a page stored before, removes what is there.
fn put_or_remove<R: Record>(
    db: &DB,
    batch: &mut WriteBatch,
    cf: Cf,
    key: &[u8],
    record: Option<&R>,
    stored_before: bool,
) {
    match record {
        Some(record) => batch.put_cf(cf_handle(db, cf), key, record.encode()),
        None if stored_before => batch.delete_cf(cf_handle(db, cf), key),
        None => {}
    }
}
