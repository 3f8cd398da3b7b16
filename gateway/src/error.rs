//! Errors of the search server, and the one place that maps every failure to an HTTP answer.
//!
//! Handlers reject with an [`AppError`]; warp's own rejections (no such route, wrong method,
//! bad body) arrive here too. [`answer`] (behind [`recover_html`] and [`recover_json`]) turns
//! each into a status and a friendly answer — an HTML page, or `{"error": "..."}` under
//! `/api` — and never shows a stack trace: a 500 says only that the details are in the
//! server's log, where they are written. No index yet is a 503.

use std::convert::Infallible;

use serde_json::json;
use warp::http::StatusCode;
use warp::reject::Rejection;
use warp::reply::{Reply, Response};

use crate::render;
use crate::search_error::SearchError;

/// What can go wrong answering a request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The search core could not answer: no index yet, a query the index refused, or an
    /// index fault.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A parameter that makes no sense.
    #[error("{0}")]
    BadRequest(String),
    /// Nothing there.
    #[error("{0}")]
    NotFound(String),
    /// The page asked not to be shown (noarchive).
    #[error("{0}")]
    Forbidden(String),
    /// The content store failed.
    #[error("store: {0}")]
    Store(#[from] shared::StoreError),
    /// A stored record failed to decode.
    #[error("store: {0}")]
    Record(#[from] shared::RecordError),
    /// Every search slot stayed taken for the whole request time.
    #[error("the server is busy; try again in a moment")]
    Busy,
    /// A background task failed.
    #[error("internal: {0}")]
    Internal(String),
    /// A leaf's caller did not show the shared token (said no more than that).
    #[error("unauthorized")]
    Unauthorized,
    /// A setting could not be used at start (one line saying why).
    #[error("{0}")]
    Config(String),
    /// A request body past its bound; `read_to_end` when it was read and dropped whole,
    /// so the connection can serve the next request (see `form`).
    #[error("The request is too large.")]
    TooLarge {
        /// Whether the body was read to its end.
        read_to_end: bool,
    },
    /// A form body sent as something other than a URL-encoded form.
    #[error("Send the form as application/x-www-form-urlencoded.")]
    UnsupportedMediaType,
}

impl warp::reject::Reject for AppError {}

impl AppError {
    /// The HTTP status for this error.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Search(SearchError::NoIndex) | AppError::Busy => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AppError::BadRequest(_)
            | AppError::Search(SearchError::BadQuery { .. } | SearchError::BadOperator(_)) => {
                StatusCode::BAD_REQUEST
            }
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::Unauthorized => StatusCode::UNAUTHORIZED,
            AppError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::Search(
                SearchError::Index(_) | SearchError::IndexFiles(_) | SearchError::Synonyms(_),
            )
            | AppError::Store(_)
            | AppError::Record(_)
            | AppError::Internal(_)
            | AppError::Config(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the user is told: the message, except for server faults, whose details go to
    /// the log only.
    pub fn public_message(&self) -> String {
        if self.status() == StatusCode::INTERNAL_SERVER_ERROR {
            "The server failed to answer; the details are in its log.".into()
        } else {
            self.to_string()
        }
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(error: tokio::task::JoinError) -> Self {
        AppError::Internal(error.to_string())
    }
}

/// Turns an error into a warp rejection (for `map_err`).
pub fn reject(error: AppError) -> Rejection {
    warp::reject::custom(error)
}

/// How an error answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A friendly HTML page.
    Html,
    /// `{"error": "..."}`.
    Json,
}

/// The status, a short title and the message of any rejection.
fn classify(rejection: &Rejection) -> (StatusCode, &'static str, String) {
    if let Some(error) = rejection.find::<AppError>() {
        if error.status() == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(%error, "request failed");
        }
        return described(error);
    }
    if rejection.is_not_found() {
        return (
            StatusCode::NOT_FOUND,
            "Not found",
            "There is no page here.".into(),
        );
    }
    // warp's own body refusals (the leaf routes' bodies) are told as ours are.
    if rejection.find::<warp::reject::PayloadTooLarge>().is_some() {
        return described(&AppError::TooLarge { read_to_end: false });
    }
    if rejection
        .find::<warp::reject::UnsupportedMediaType>()
        .is_some()
    {
        return described(&AppError::UnsupportedMediaType);
    }
    // (After the body's refusals: a POST too large for /search is also a POST that the
    // GET-only routes refuse, and warp keeps every route's rejection.)
    if rejection.find::<warp::reject::MethodNotAllowed>().is_some() {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed",
            "That method is not allowed here.".into(),
        );
    }
    tracing::debug!(?rejection, "request rejected");
    (
        StatusCode::BAD_REQUEST,
        "Bad request",
        "The request could not be understood.".into(),
    )
}

/// The status, title and message of an [`AppError`].
fn described(error: &AppError) -> (StatusCode, &'static str, String) {
    let title = match error {
        AppError::Search(SearchError::NoIndex) => "No index yet",
        AppError::BadRequest(_) => "Bad request",
        AppError::Search(SearchError::BadQuery { .. }) => "Query not searched",
        AppError::NotFound(_) => "Not found",
        AppError::Forbidden(_) => "Not available",
        AppError::Busy => "Busy",
        AppError::Unauthorized => "Unauthorized",
        AppError::TooLarge { .. } => "Too large",
        AppError::UnsupportedMediaType => "Bad request",
        _ => "Something went wrong",
    };
    (error.status(), title, error.public_message())
}

/// The answer for a rejection, in `format`.
pub fn answer(rejection: &Rejection, format: Format) -> Response {
    let (status, title, message) = classify(rejection);
    let mut response = match format {
        Format::Html => {
            let page = render::problem(title, &message).into_string();
            warp::reply::with_status(warp::reply::html(page), status).into_response()
        }
        Format::Json => {
            warp::reply::with_status(warp::reply::json(&json!({ "error": message })), status)
                .into_response()
        }
    };
    if let Some(AppError::TooLarge { read_to_end: false }) = rejection.find::<AppError>() {
        // The rest of the body is still coming: hyper closes this connection after the
        // answer, and the client is told so rather than finding it closed.
        response.headers_mut().insert(
            warp::http::header::CONNECTION,
            warp::http::HeaderValue::from_static("close"),
        );
    }
    response
}

/// warp's `recover` for HTML routes.
pub async fn recover_html(rejection: Rejection) -> Result<Response, Infallible> {
    Ok(answer(&rejection, Format::Html))
}

/// warp's `recover` for `/api` routes.
pub async fn recover_json(rejection: Rejection) -> Result<Response, Infallible> {
    Ok(answer(&rejection, Format::Json))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(error: AppError, status: u16, format: Format) -> String {
        let response = answer(&reject(error), format);
        assert_eq!(response.status().as_u16(), status);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            content_type.contains(match format {
                Format::Html => "text/html",
                Format::Json => "application/json",
            }),
            "{content_type}"
        );
        content_type
    }

    #[test]
    fn statuses() {
        check(SearchError::NoIndex.into(), 503, Format::Html);
        check(SearchError::NoIndex.into(), 503, Format::Json);
        check(AppError::BadRequest("x".into()), 400, Format::Json);
        let refused = tantivy::TantivyError::SchemaError("Field title is not a fast field.".into());
        check(
            SearchError::of_query("title:*", refused).into(),
            400,
            Format::Json,
        );
        let refused = tantivy::TantivyError::FieldNotFound("<~intitle".into());
        check(
            SearchError::of_query("<~intitle:*", refused).into(),
            400,
            Format::Html,
        );
        check(AppError::NotFound("x".into()), 404, Format::Html);
        check(AppError::Forbidden("x".into()), 403, Format::Html);
        check(AppError::Internal("secret".into()), 500, Format::Json);
        let response = answer(&warp::reject::not_found(), Format::Html);
        assert_eq!(response.status().as_u16(), 404);
    }

    #[test]
    fn internal_details_stay_in_the_log() {
        let error = AppError::Internal("/secret/path".into());
        assert!(!error.public_message().contains("secret"));
    }
}
