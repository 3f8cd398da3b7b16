//! `POST` form bodies, read to their end even when refused.
//!
//! warp's `content_length_limit` refuses a large body before reading it. hyper then closes
//! the connection with the body unread, and the kernel answers the client's unread bytes
//! with a reset: a client still writing its body (or reusing the connection) gets "connection
//! reset" instead of the `413`, and a browser shows its own error page. Here a body past
//! [`FORM_BYTES`] is read and dropped, up to [`DRAIN_BYTES`], so the `413` arrives on a
//! connection that stays open; past that, the answer says `Connection: close`.

use bytes::{Buf, BufMut, BytesMut};
use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use warp::Filter;
use warp::reject::Rejection;

use crate::error::{AppError, reject};

/// The largest form body read and kept.
pub const FORM_BYTES: usize = 16 * 1024;

/// The most of a refused body read and dropped before answering (within the request time);
/// a larger one is answered at this point and its connection closed.
pub const DRAIN_BYTES: usize = 1024 * 1024;

/// An `application/x-www-form-urlencoded` body (or one without a content type) of at most
/// [`FORM_BYTES`], decoded as `T`. Rejects with [`AppError::TooLarge`],
/// [`AppError::UnsupportedMediaType`] or [`AppError::BadRequest`], the body read first.
pub fn form<T: DeserializeOwned + Send + 'static>()
-> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(warp::body::stream())
        .and_then(|content_type: Option<String>, body| async move {
            let body = read_within(body, FORM_BYTES, DRAIN_BYTES)
                .await
                .map_err(reject)?;
            if !content_type.as_deref().is_none_or(is_form) {
                return Err(reject(AppError::UnsupportedMediaType));
            }
            serde_urlencoded::from_bytes(&body)
                .map_err(|error| reject(AppError::BadRequest(format!("bad form: {error}"))))
        })
}

/// Whether a content type names a URL-encoded form (any parameters, any case).
fn is_form(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/x-www-form-urlencoded")
}

/// The whole of `body` if it is at most `keep` bytes. A longer one is read on and dropped
/// up to `drain` bytes: [`AppError::TooLarge`] says whether it was read to its end.
async fn read_within<B: Buf>(
    body: impl Stream<Item = Result<B, warp::Error>>,
    keep: usize,
    drain: usize,
) -> Result<BytesMut, AppError> {
    let mut body = std::pin::pin!(body);
    let mut kept = BytesMut::new();
    let mut seen = 0usize;
    while let Some(chunk) = body.next().await {
        let chunk =
            chunk.map_err(|error| AppError::BadRequest(format!("the body broke off: {error}")))?;
        seen = seen.saturating_add(chunk.remaining());
        if seen > drain {
            return Err(AppError::TooLarge { read_to_end: false });
        }
        if seen <= keep {
            kept.put(chunk);
        }
    }
    if seen > keep {
        return Err(AppError::TooLarge { read_to_end: true });
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(sizes: &[usize]) -> impl Stream<Item = Result<bytes::Bytes, warp::Error>> {
        let chunks: Vec<_> = sizes
            .iter()
            .map(|&n| Ok(bytes::Bytes::from(vec![b'a'; n])))
            .collect();
        futures_util::stream::iter(chunks)
    }

    #[tokio::test]
    async fn a_body_is_kept_within_the_bound_and_drained_past_it() {
        let kept = read_within(chunks(&[3, 4]), 7, 20).await.expect("kept");
        assert_eq!(&kept[..], b"aaaaaaa");
        assert!(matches!(
            read_within(chunks(&[3, 5]), 7, 20).await,
            Err(AppError::TooLarge { read_to_end: true })
        ));
        assert!(matches!(
            read_within(chunks(&[10, 10, 1]), 7, 20).await,
            Err(AppError::TooLarge { read_to_end: false })
        ));
    }

    #[test]
    fn form_content_types() {
        assert!(is_form("application/x-www-form-urlencoded"));
        assert!(is_form("Application/X-WWW-Form-Urlencoded; charset=UTF-8"));
        assert!(!is_form("application/json"));
        assert!(!is_form("multipart/form-data; boundary=x"));
    }
}
