//! Duplicate lookups: the stored page with the same text hash (column family `content`), or
//! with a simhash within [`simhash::NEAR_DISTANCE`] bits and a similar title (column family
//! `near`, each simhash indexed under its four 16-bit blocks); and, before a render, the
//! stored page a page is a variant of: the same static text under the same path (column
//! family `content` too, under a [`variant_key`]: `v`, the hash, the URL without its query,
//! never 8 bytes long as a text hash's key is), or of a page being rendered right now (a
//! [`RenderClaim`] held from before its render until its write): copies fetched at once
//! are rendered once.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rocksdb::DB;
use shared::store::{Cf, cf_handle};
use shared::{CanonicalUrl, StoreError, simhash};

use super::PageStore;

/// Index entries read per simhash block when looking for a near-duplicate: a bound on the
/// work of one lookup (a block value shared by this many pages is noise, not a match).
const NEAR_CANDIDATES: usize = 512;

/// A fetch task's look at the store's text index, before it renders a page: is this page a
/// variant of a stored one (its static text under the same path), or of one being rendered?
/// Holds the store weakly, so a task that outlives the crawl (a render cut off by Ctrl-C)
/// never keeps the store open.
#[derive(Clone, Debug)]
pub(crate) struct CopyCheck {
    db: Weak<DB>,
    rendering: Rendering,
}

/// The pages being rendered, by variant key, with their URLs.
#[derive(Clone, Debug, Default)]
pub(super) struct Rendering(Arc<Mutex<HashMap<Vec<u8>, String>>>);

/// What a page about to be rendered is.
#[derive(Debug)]
pub(crate) enum BeforeRender {
    /// A variant of this page, stored or being rendered: stored as its copy, not rendered.
    VariantOf(String),
    /// The first page of its static text and path: rendered, the claim held until its
    /// write so that its variants fetched meanwhile are not.
    First(RenderClaim),
}

/// A page's claim on its variant key while it is rendered and written; dropped, the key is
/// free again.
#[derive(Debug)]
pub(crate) struct RenderClaim {
    rendering: Rendering,
    key: Vec<u8>,
}

impl Drop for RenderClaim {
    fn drop(&mut self) {
        let mut claimed = self
            .rendering
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        claimed.remove(&self.key);
    }
}

impl CopyCheck {
    /// What `url`, whose static text hash is `static_text_hash`, is: a variant of a stored
    /// page or of a page being rendered, or the first of its text and path (then claimed).
    pub(crate) fn before_render(&self, static_text_hash: u64, url: &CanonicalUrl) -> BeforeRender {
        if let Some(original) = self.variant_of(static_text_hash, url) {
            return BeforeRender::VariantOf(original);
        }
        let key = variant_key(static_text_hash, url.as_str());
        let mut claimed = self
            .rendering
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match claimed.entry(key.clone()) {
            Entry::Occupied(rendering) => BeforeRender::VariantOf(rendering.get().clone()),
            Entry::Vacant(free) => {
                free.insert(url.as_str().to_string());
                BeforeRender::First(RenderClaim {
                    rendering: self.rendering.clone(),
                    key,
                })
            }
        }
    }

    /// The stored rendered page `url` is a variant of: one whose static text hash was
    /// `static_text_hash` and whose URL is `url`'s but for the query (`None` also when the
    /// store is closed or cannot be read: the page is then rendered).
    pub(crate) fn variant_of(&self, static_text_hash: u64, url: &CanonicalUrl) -> Option<String> {
        let db = self.db.upgrade()?;
        let key = variant_key(static_text_hash, url.as_str());
        let owner = db.get_pinned_cf(cf_handle(&db, Cf::Content), key).ok()??;
        Some(String::from_utf8_lossy(&owner).into_owned()).filter(|owner| owner != url.as_str())
    }
}

/// The key a rendered page is found under by its variants: `v`, its static text hash (BE),
/// its URL up to the query.
pub(super) fn variant_key(static_text_hash: u64, url: &str) -> Vec<u8> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let mut key = Vec::with_capacity(9 + path.len());
    key.push(b'v');
    key.extend_from_slice(&static_text_hash.to_be_bytes());
    key.extend_from_slice(path.as_bytes());
    key
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
            rendering: self.rendering.clone(),
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
