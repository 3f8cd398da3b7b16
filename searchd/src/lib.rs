//! The search gateway: HTML search pages, a JSON API, cached copies, a status page, and the
//! crawl-then-search demo.
//!
//! - [`serve`]: runs the server on a bound listener until `shutdown` (tests start it on
//!   port 0 in-process).
//! - [`search`]: [`Searcher`], which ranks by BM25 across fields times the link boost and
//!   follows new index generations.
//! - [`query`]: the query language (words, phrases, `-word`, `OR`, `title:`, `site:`).
//! - [`routes`]: the HTTP surface; [`render`]: the escaping HTML templates.
//! - [`demo`]: `searchd demo`.
//!
//! ```no_run
//! # async fn run() -> anyhow::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! searchd::serve(listener, "crawl-data".into(), shared::Config::default(), std::future::pending()).await?;
//! # Ok(()) }
//! ```

pub mod demo;
mod error;
pub mod query;
pub mod render;
pub mod routes;
pub mod search;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use error::AppError;
pub use search::{Hit, SearchResults, Searcher};

/// How often the server looks for a new index generation.
const REFRESH_EVERY: Duration = Duration::from_secs(1);

/// Serves search over the index of `data` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    data: PathBuf,
    config: shared::Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    let searcher = Searcher::open(&data, config.ranking.clone())?
        .with_max_query_len(config.searchd.max_query_len);
    let state = Arc::new(routes::AppState {
        searcher,
        per_page: config.searchd.per_page,
    });
    let watcher = {
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(REFRESH_EVERY).await;
                let state = Arc::clone(&state);
                let refreshed = tokio::task::spawn_blocking(move || state.searcher.refresh()).await;
                if let Ok(Err(error)) = refreshed {
                    tracing::warn!(%error, "could not load the new index generation");
                }
            }
        })
    };
    warp::serve(routes::routes(state))
        .incoming(listener)
        .graceful(shutdown)
        .run()
        .await;
    watcher.abort();
    Ok(())
}
