//! Errors of the search server, and the one place that maps them to HTTP answers.

use warp::http::StatusCode;

/// What can go wrong answering a request.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// No index has been built yet.
    #[error("no index yet: run `indexer build` for this data directory")]
    NoIndex,
    /// The query has nothing to search for.
    #[error("type some words to search for")]
    EmptyQuery,
    /// A parameter that makes no sense.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// Nothing there.
    #[error("{0}")]
    NotFound(String),
    /// The page asked not to be shown (noarchive).
    #[error("{0}")]
    Forbidden(String),
    /// The index failed.
    #[error("index error: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// The indexer's files failed.
    #[error("index error: {0}")]
    Indexer(#[from] indexer::Error),
    /// The store failed.
    #[error("store error: {0}")]
    Store(#[from] shared::StoreError),
    /// A record failed to decode.
    #[error("store error: {0}")]
    Record(#[from] shared::RecordError),
}

impl AppError {
    /// The HTTP status for this error.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::NoIndex => StatusCode::SERVICE_UNAVAILABLE,
            AppError::EmptyQuery | AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::Index(_)
            | AppError::Indexer(_)
            | AppError::Store(_)
            | AppError::Record(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}
