//! Reading the `rendered` family: one page's [`RenderedPage`] by URL, and
//! [`RenderedInOrder`], the records of pages read in URL order, found by walking the family
//! beside them instead of a lookup per page.
//!
//! A store written before rendering existed has no `rendered` family: it reads as one
//! without any record, so older stores open read-only as before.

use rocksdb::{DB, DBIteratorWithThreadMode, IteratorMode};

use super::{Cf, StoreError, StoreReader};
use crate::record::{Record, RenderedPage};

impl StoreReader {
    /// What rendering a page in a browser found (`None`: it was not rendered, or the store is
    /// older than rendering).
    pub fn rendered(&self, url: &str) -> Result<Option<RenderedPage>, StoreError> {
        self.get(Cf::Rendered, url.as_bytes())
    }

    /// The rendered records of pages asked for in URL order (see [`RenderedInOrder`]).
    pub fn rendered_in_order(&self) -> RenderedInOrder<'_> {
        let iter = self.db.cf_handle(Cf::Rendered.name()).map(|cf| {
            self.db
                .iterator_cf_opt(cf, self.pattern.scan_options(), IteratorMode::Start)
        });
        RenderedInOrder {
            iter,
            next: None,
            done: false,
        }
    }
}

/// A key and its value, as the walk read them.
type Entry = (Box<[u8]>, Box<[u8]>);

/// The rendered records of pages asked for in ascending URL order (the order the `pages`
/// family is read in): one forward walk over the `rendered` family, which holds a record for
/// few pages, or none. Keys passed over are never decoded, and a store without a record
/// costs one empty seek.
pub struct RenderedInOrder<'a> {
    iter: Option<DBIteratorWithThreadMode<'a, DB>>,
    /// The entry read and not yet passed: its key is at or above every URL asked so far.
    next: Option<Entry>,
    /// The walk reached the end of the family.
    done: bool,
}

impl RenderedInOrder<'_> {
    /// The record of `url`, which must not sort before a URL asked before (one that does
    /// finds nothing). An error for a record that does not decode, or a failed read.
    pub fn get(&mut self, url: &str) -> Result<Option<RenderedPage>, StoreError> {
        let url = url.as_bytes();
        loop {
            if let Some((key, value)) = &self.next {
                match (**key).cmp(url) {
                    std::cmp::Ordering::Less => self.next = None,
                    std::cmp::Ordering::Equal => return Ok(Some(RenderedPage::decode(value)?)),
                    std::cmp::Ordering::Greater => return Ok(None),
                }
            }
            if self.done {
                return Ok(None);
            }
            match self.iter.as_mut().and_then(Iterator::next) {
                Some(entry) => self.next = Some(entry?),
                None => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::record::{CompressedBody, RenderOutcome};
    use crate::store::{MemoryBudget, cf_handle, open_options, store_dir};

    fn rendered(text: &str) -> RenderedPage {
        RenderedPage {
            rendered_at_ms: 1,
            outcome: RenderOutcome::Rendered,
            html: Some(CompressedBody::compress(text)),
            requests: 3,
            refused: 1,
            elapsed_ms: 250,
        }
    }

    /// A store in `data` with every family but those `left_out`, holding `records`.
    fn store_with(data: &std::path::Path, left_out: &[Cf], records: &[(&str, &[u8])]) {
        let budget = MemoryBudget::default();
        let families = Cf::ALL
            .iter()
            .filter(|cf| !left_out.contains(cf))
            .map(|cf| cf.descriptor(&budget));
        let db =
            DB::open_cf_descriptors(&open_options(&budget), store_dir(data), families).unwrap();
        for (url, value) in records {
            db.put_cf(cf_handle(&db, Cf::Rendered), url, value).unwrap();
        }
    }

    #[test]
    fn pages_asked_in_url_order_find_their_own_records_and_no_other() {
        let data = tempfile::tempdir().unwrap();
        let (b, d) = (rendered("b after scripts"), rendered("d after scripts"));
        store_with(
            data.path(),
            &[],
            &[
                ("http://a.test/b", &b.encode()),
                ("http://a.test/d", &d.encode()),
                ("http://a.test/f", b"\x01garbage"),
            ],
        );
        let store = StoreReader::open(data.path()).unwrap();
        let mut walk = store.rendered_in_order();
        assert_eq!(walk.get("http://a.test/a").unwrap(), None);
        assert_eq!(walk.get("http://a.test/b").unwrap(), Some(b.clone()));
        assert_eq!(walk.get("http://a.test/c").unwrap(), None);
        assert_eq!(walk.get("http://a.test/d").unwrap(), Some(d));
        assert!(
            walk.get("http://a.test/f").is_err(),
            "a record that does not decode is an error, for its own page only"
        );
        assert_eq!(walk.get("http://a.test/g").unwrap(), None);
        assert_eq!(walk.get("http://a.test/z").unwrap(), None, "past the end");
        assert_eq!(store.rendered("http://a.test/b").unwrap(), Some(b));
        assert_eq!(store.rendered("http://a.test/c").unwrap(), None);
    }

    #[test]
    fn a_store_made_before_rendering_opens_read_only_and_has_no_render() {
        let data = tempfile::tempdir().unwrap();
        store_with(data.path(), &[Cf::Rendered], &[]);
        let store = StoreReader::open(data.path()).unwrap();
        assert_eq!(store.rendered("http://a.test/").unwrap(), None);
        assert_eq!(
            store.rendered_in_order().get("http://a.test/").unwrap(),
            None
        );
    }
}
