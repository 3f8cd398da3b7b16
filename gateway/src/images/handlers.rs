//! The handlers of image search: `GET /images` (the HTML grid), `GET /api/images` (JSON)
//! and `GET /thumb/HASH` (a stored thumbnail).
//!
//! Thumbnails are read from the content store, keyed by the image's content hash, which
//! never changes what it names: they are sent with a year-long, immutable cache lifetime.
//! The store is opened for each request, as cached copies open it (see `crate::cache`); a
//! partitioned data directory's stores are asked in turn.

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use shared::{StoreError, StoreReader};
use warp::Rejection;
use warp::http::HeaderValue;
use warp::reply::{Reply, Response};

use super::query::ImageRequest;
use super::render as image_render;
use super::search::ImageResults;
use crate::error::{AppError, reject};
use crate::handlers::{AppState, Params, blocking};

/// The cache lifetime of a thumbnail: a year, never revalidated.
pub const THUMBNAIL_CACHE: &str = "public, max-age=31536000, immutable";

/// Most hex digits of a content hash (a `u64`).
const HASH_DIGITS: usize = 16;

fn read_request(params: &Params, state: &AppState) -> Result<ImageRequest, Rejection> {
    ImageRequest::read(params, state.per_page)
        .map_err(|error| reject(AppError::BadRequest(error.to_string())))
}

/// `GET /images`: the grid of thumbnails.
pub async fn images_page(params: Params, state: Arc<AppState>) -> Result<Response, Rejection> {
    let request = read_request(&params, &state)?;
    let asked = request.clone();
    let results = blocking(&state, move |s| s.searcher.search_images(&asked)).await?;
    let page = image_render::images(&results, &request);
    Ok(warp::reply::html(page.into_string()).into_response())
}

/// The JSON answer of `/api/images`: `{"query", "total", "took_ms", "page", "hits": [{"url",
/// "page_url", "title", "alt", "width", "height", "format", "bytes", "thumbnail",
/// "score"}]}`; `thumbnail` is the `/thumb/HASH` path, or null when none is stored.
pub fn images_json(results: &ImageResults) -> serde_json::Value {
    let hits: Vec<serde_json::Value> = results
        .hits
        .iter()
        .map(|hit| {
            json!({
                "url": hit.url,
                "page_url": hit.page_url,
                "title": hit.title,
                "alt": hit.alt,
                "width": hit.width,
                "height": hit.height,
                "format": hit.format,
                "bytes": hit.bytes,
                "thumbnail": hit.thumbnail,
                "score": hit.score,
            })
        })
        .collect();
    json!({
        "query": results.query,
        "total": results.total,
        "took_ms": results.took_ms,
        "page": results.page,
        "hits": hits,
    })
}

/// `GET /api/images`.
pub async fn images_api(params: Params, state: Arc<AppState>) -> Result<Response, Rejection> {
    let request = read_request(&params, &state)?;
    let results = blocking(&state, move |s| s.searcher.search_images(&request)).await?;
    Ok(warp::reply::json(&images_json(&results)).into_response())
}

/// The content hash a `/thumb/` path names: 1 to 16 hex digits.
pub fn parse_hash(text: &str) -> Result<u64, AppError> {
    let hex = !text.is_empty()
        && text.len() <= HASH_DIGITS
        && text.chars().all(|c| c.is_ascii_hexdigit());
    hex.then(|| u64::from_str_radix(text, 16).ok())
        .flatten()
        .ok_or_else(|| {
            AppError::BadRequest(
                "a thumbnail is named by its image's content hash: up to 16 hex digits".into(),
            )
        })
}

/// The thumbnail stored under `hash` in the store of any of `dirs`. Blocking.
pub fn thumbnail_anywhere(dirs: &[impl AsRef<Path>], hash: u64) -> Result<Vec<u8>, AppError> {
    for dir in dirs {
        let store = match StoreReader::open(dir.as_ref()) {
            Ok(store) => store,
            Err(StoreError::Missing(_)) => continue,
            Err(error) => return Err(error.into()),
        };
        if let Some(thumbnail) = store.thumbnail(hash)? {
            return Ok(thumbnail.bytes);
        }
    }
    Err(AppError::NotFound(format!(
        "no thumbnail is stored under {hash:016x}"
    )))
}

/// `GET /thumb/HASH`: the stored JPEG thumbnail.
pub async fn thumb(hash: String, state: Arc<AppState>) -> Result<Response, Rejection> {
    let hash = parse_hash(&hash).map_err(reject)?;
    let bytes = blocking(&state, move |s| {
        thumbnail_anywhere(&s.searcher.data_dirs(), hash)
    })
    .await?;
    let mut response = Response::new(bytes.into());
    let headers = response.headers_mut();
    headers.insert("content-type", HeaderValue::from_static("image/jpeg"));
    headers.insert("cache-control", HeaderValue::from_static(THUMBNAIL_CACHE));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_one_to_sixteen_hex_digits() {
        assert_eq!(parse_hash("00000000000000ff").ok(), Some(255));
        assert_eq!(parse_hash("DEADbeef").ok(), Some(0xdead_beef));
        for bad in [
            "",
            "xyz",
            "12345678901234567",
            "-1",
            "+1",
            "ff ",
            "../store",
        ] {
            assert!(parse_hash(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_missing_store_has_no_thumbnails() {
        let data = tempfile::tempdir().expect("tempdir");
        let error = thumbnail_anywhere(&[data.path()], 7).expect_err("none");
        assert!(matches!(error, AppError::NotFound(_)), "{error}");
    }
}
