//! Duplicate lookups: the stored page with the same text hash (column family `content`), or
//! with a simhash within [`simhash::NEAR_DISTANCE`] bits and a similar title (column family
//! `near`, each simhash indexed under its four 16-bit blocks).

use std::sync::{Arc, Weak};

use rocksdb::DB;
use shared::store::{Cf, cf_handle};
use shared::{StoreError, simhash};

use super::PageStore;

/// Index entries read per simhash block when looking for a near-duplicate: a bound on the
/// work of one lookup (a block value shared by this many pages is noise, not a match).
const NEAR_CANDIDATES: usize = 512;

/// A fetch task's look at the store's text index, before it renders a page: is this text
/// already stored under another URL? Holds the store weakly, so a task that outlives the
/// crawl (a render cut off by Ctrl-C) never keeps the store open.
#[derive(Clone, Debug)]
pub(crate) struct CopyCheck {
    db: Weak<DB>,
}

impl CopyCheck {
    /// The stored page whose text hash is `text_hash`, other than `except`; `None` also when
    /// the store is closed or cannot be read (the page is then treated as new).
    pub(crate) fn original(&self, text_hash: u64, except: &str) -> Option<String> {
        let db = self.db.upgrade()?;
        exact_owner(&db, text_hash, except).ok().flatten()
    }
}

/// The stored page whose text hash is `text_hash`, other than `except`.
fn exact_owner(db: &DB, text_hash: u64, except: &str) -> Result<Option<String>, StoreError> {
    Ok(db
        .get_pinned_cf(cf_handle(db, Cf::Content), text_hash.to_be_bytes())?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .filter(|owner| owner != except))
}

impl PageStore {
    /// A [`CopyCheck`] of this store.
    pub(crate) fn copy_check(&self) -> CopyCheck {
        CopyCheck {
            db: Arc::downgrade(&self.db),
        }
    }

    /// The stored page a page duplicates, other than `except` (the page itself, on a
    /// revisit): the first stored with the same `text_hash`, else one whose simhash is within
    /// [`simhash::NEAR_DISTANCE`] bits of `near`'s and whose title is similar (`near` is the
    /// page's simhash and title, when its text is long enough to have one).
    pub fn content_owner(
        &self,
        text_hash: u64,
        near: Option<(u64, &str)>,
        except: &str,
    ) -> Result<Option<String>, StoreError> {
        match (exact_owner(&self.db, text_hash, except)?, near) {
            (Some(owner), _) => Ok(Some(owner)),
            (None, Some((hash, title))) => self.near_owner(hash, title, except),
            (None, None) => Ok(None),
        }
    }

    /// A stored page whose simhash is near `hash` and whose title is similar: candidates
    /// share one of its blocks. Index values are `url \0 title`.
    fn near_owner(
        &self,
        hash: u64,
        title: &str,
        except: &str,
    ) -> Result<Option<String>, StoreError> {
        // One iterator for every block: creating one is most of a short scan's cost.
        let mut candidates = self.db.raw_iterator_cf(self.cf(Cf::Near));
        for key in simhash::block_keys(hash) {
            let prefix = &key[..3];
            candidates.seek(prefix);
            for _ in 0..NEAR_CANDIDATES {
                let (Some(key), Some(value)) = (candidates.key(), candidates.value()) else {
                    break;
                };
                if !key.starts_with(prefix) {
                    break;
                }
                if simhash::hash_of_key(key).is_some_and(|other| simhash::is_near(hash, other)) {
                    let (url, other_title) = match value.iter().position(|&b| b == 0) {
                        Some(nul) => (&value[..nul], &value[nul + 1..]),
                        None => (value, &[][..]),
                    };
                    if url != except.as_bytes()
                        && simhash::similar_titles(title, &String::from_utf8_lossy(other_title))
                    {
                        return Ok(Some(String::from_utf8_lossy(url).into_owned()));
                    }
                }
                candidates.next();
            }
            candidates.status()?;
        }
        Ok(None)
    }
}
