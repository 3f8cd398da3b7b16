//! Cached copies: a page as the crawler stored it, unless it asked for `noarchive`.
//!
//! The store is opened read-only for each request, so a copy is as fresh as the last page the
//! crawler wrote, and searchd never holds the store open (nor ever writes it).

use std::path::Path;

use shared::{CanonicalUrl, StoreError, StoreReader};

use crate::error::AppError;

/// A stored page that may be shown.
#[derive(Clone, Debug, PartialEq, Eq)]
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
