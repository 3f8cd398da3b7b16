//! `SearchError`: why the search core could not answer. The HTTP layer
//! ([`crate::error::AppError`]) maps it to a status; the search core knows nothing of HTTP.

/// Why a search, or a lookup of a document in the index, could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// No index has been built yet.
    #[error("no index yet: run `indexer build --data DIR`; searchd picks it up by itself")]
    NoIndex,
    /// The index refused to run a user's query (a field or an argument it does not take):
    /// the query's fault, not the server's. The query text is kept for the log only.
    #[error(
        "this query could not be searched; try plain words, \"phrases\", -word, OR, site: or title:"
    )]
    BadQuery {
        /// The query as typed.
        query: String,
        /// What the index said.
        reason: String,
    },
    /// An operator's value makes no sense (`after:2024-02-30`): what is wrong, for the user.
    #[error("{0}")]
    BadOperator(String),
    /// The synonyms file could not be read, or was refused (one line saying why).
    #[error("{0}")]
    Synonyms(String),
    /// The index failed.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
    /// The index's files (generations, `CURRENT`, fields) could not be read.
    #[error("index: {0}")]
    IndexFiles(#[from] index_format::Error),
}

impl SearchError {
    /// A failure while running the user's query `query`: a field or argument the index
    /// refused is [`SearchError::BadQuery`], anything else (I/O, a corrupt file) stays a
    /// fault of the index. The query language keeps such queries from the index (see
    /// `crate::user_fields`); this is the last guard, not the fix.
    pub fn of_query(query: &str, error: tantivy::TantivyError) -> Self {
        use tantivy::TantivyError as E;
        match error {
            E::FieldNotFound(reason) | E::InvalidArgument(reason) | E::SchemaError(reason) => {
                tracing::warn!(%query, %reason, "the index refused a query");
                SearchError::BadQuery {
                    query: query.to_string(),
                    reason,
                }
            }
            other => SearchError::Index(other),
        }
    }
}
