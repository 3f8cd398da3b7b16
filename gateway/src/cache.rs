//! Cached copies: a page as the crawler stored it, unless it asked for `noarchive`.
//!
//! The store is opened read-only for each request, so a copy is as fresh as the last page the
//! crawler wrote, and searchd never holds the store open (nor ever writes it). A partitioned
//! data directory has a store per partition: each is asked in turn ([`copy_in_any`]), then
//! each remote leaf (`/leaf/cache`, answered by [`CopyAnswer`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use shared::{CanonicalUrl, StoreError, StoreReader};

use crate::error::AppError;
use crate::search::Searcher;

/// A stored page that may be shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CachedCopy {
    /// Its canonical URL.
    pub url: String,
    /// When it was fetched, ms since the Unix epoch.
    pub fetched_at_ms: u64,
    /// The stored HTML (untrusted).
    pub html: String,
}

/// The stored copy of `url` (canonicalized first). Blocking: call it off the async threads.
///
/// Errors: a malformed URL is a bad request; no store, no such page, and a page with no body
/// (a redirect, an error answer) are not found; a `noarchive` page is forbidden.
pub fn cached_copy(data: &Path, url: &str) -> Result<CachedCopy, AppError> {
    let url = url.trim();
    if url.is_empty() {
        return Err(AppError::BadRequest(
            "say which page with /cache?url=…".into(),
        ));
    }
    let canonical = CanonicalUrl::parse(url)
        .map_err(|e| AppError::BadRequest(format!("{url:?} is not a page address: {e}")))?;
    let store = match StoreReader::open(data) {
        Ok(store) => store,
        Err(StoreError::Missing(_)) => {
            return Err(AppError::NotFound(
                "there is no content store here, so no cached copies".into(),
            ));
        }
        Err(e) => return Err(e.into()),
    };
    let page = store
        .page(canonical.as_str())?
        .ok_or_else(|| AppError::NotFound(format!("no stored copy of {canonical}")))?;
    if page.robots.noarchive {
        return Err(AppError::Forbidden(format!(
            "{canonical} asked that no cached copy be shown (noarchive)"
        )));
    }
    if let Some(target) = &page.redirect_to {
        return Err(AppError::NotFound(format!(
            "{canonical} redirected to {target}; no copy is stored under this address"
        )));
    }
    if !page.is_html_page() {
        return Err(AppError::NotFound(match &page.error {
            Some(error) => format!("no stored copy of {canonical}: the fetch failed ({error})"),
            None => format!(
                "no stored copy of {canonical}: it answered HTTP {} with no page",
                page.status
            ),
        }));
    }
    Ok(CachedCopy {
        url: page.url,
        fetched_at_ms: page.fetched_at_ms,
        html: page.body.decompress()?,
    })
}

/// A leaf's answer to `/leaf/cache`: the copy, or why it shows none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CopyAnswer {
    /// The copy.
    Found(CachedCopy),
    /// Not stored here (or no body), with the reason.
    NotFound(String),
    /// Stored, but not to be shown (`noarchive`), with the reason.
    Forbidden(String),
    /// Not a page address.
    BadRequest(String),
}

impl CopyAnswer {
    /// The answer for a lookup's outcome; other failures stay errors.
    pub fn of(outcome: Result<CachedCopy, AppError>) -> Result<Self, AppError> {
        match outcome {
            Ok(copy) => Ok(CopyAnswer::Found(copy)),
            Err(AppError::NotFound(why)) => Ok(CopyAnswer::NotFound(why)),
            Err(AppError::Forbidden(why)) => Ok(CopyAnswer::Forbidden(why)),
            Err(AppError::BadRequest(why)) => Ok(CopyAnswer::BadRequest(why)),
            Err(other) => Err(other),
        }
    }
}

/// The copy of `url` in the first of the stores of `dirs` that holds it: "not found" from one
/// store sends the lookup on to the next; any other answer is final.
pub fn copy_in_any(dirs: &[PathBuf], url: &str) -> Result<CachedCopy, AppError> {
    let mut outcome = Err(AppError::NotFound(
        "there is no content store here, so no cached copies".into(),
    ));
    for dir in dirs {
        outcome = cached_copy(dir, url);
        if !matches!(outcome, Err(AppError::NotFound(_))) {
            return outcome;
        }
    }
    outcome
}

/// The copy of `url` from the local stores of `searcher`, else from its remote leaves; a
/// leaf that does not answer counts as not holding it.
pub fn copy_anywhere(searcher: &Searcher, url: &str) -> Result<CachedCopy, AppError> {
    let local = copy_in_any(&searcher.data_dirs(), url);
    if !matches!(local, Err(AppError::NotFound(_))) || searcher.leaves().is_empty() {
        return local;
    }
    let request = serde_json::json!({ "url": url });
    for leaf in searcher.leaves() {
        match leaf.ask::<CopyAnswer>("/leaf/cache", &request).wait() {
            Ok(CopyAnswer::Found(copy)) => return Ok(copy),
            Ok(CopyAnswer::Forbidden(why)) => return Err(AppError::Forbidden(why)),
            Ok(CopyAnswer::BadRequest(why)) => return Err(AppError::BadRequest(why)),
            Ok(CopyAnswer::NotFound(_)) => {}
            Err(error) => tracing::warn!(%error, "a leaf did not answer for a cached copy"),
        }
    }
    local
}
