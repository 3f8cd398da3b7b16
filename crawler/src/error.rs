//! The crawler's errors.

/// Why a crawl could not start or went on no further.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The content store refused (locked by another crawler, corrupt, unwritable).
    #[error(transparent)]
    Store(#[from] shared::StoreError),
    /// A seed or scope that is not a crawlable URL.
    #[error("{what} {input:?}: {source}")]
    BadUrl {
        /// "seed" or "scope".
        what: &'static str,
        /// What was given.
        input: String,
        /// Why it is refused.
        source: shared::UrlError,
    },
    /// Nothing to crawl: no seeds and an empty frontier.
    #[error("nothing to crawl: give --seed or --seeds (the store's frontier is empty)")]
    NoSeeds,
    /// A distributed crawl's worker cannot go on (a bad Redis URL, a crawl of other
    /// partitions, a partition store it cannot make).
    #[error("{0}")]
    Cluster(String),
    /// Rendering is on and cannot run (the browser is not installed).
    #[error("{0}")]
    Render(String),
    /// The HTTP client could not be built.
    #[error("HTTP client: {0}")]
    Client(#[from] reqwest::Error),
}
