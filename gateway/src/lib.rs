//! The search gateway over a crawl: HTML search pages, a JSON API, cached copies, a status
//! page. `searchd serve` runs it; `searchd demo` runs it beside a crawl and live indexing.
//!
//! It reads: the index through `index_format`, the content store through
//! `shared::StoreReader`. It depends on neither the crawler nor the indexer, so nothing
//! here can write a store or an index.
//!
//! A tour of its modules, in the order a query travels:
//!
//! - the accept loop is the `service` crate's, bounded ([`Limits`]: connections, header and
//!   request timeouts; [`limits`] from the config); `routes` and `handlers`: the HTTP
//!   surface (the route table is in `routes`' docs), the handlers doing their blocking work
//!   off the async threads; `metrics`: [`GatewayMetrics`], what `/metrics` answers (the
//!   list is in its docs), and `/healthz` and `/readyz` beside it.
//! - `query`: [`UserQuery`] turns what was typed into a tantivy query: words (all
//!   required), `"phrases"`, `-word`, `OR`, `title:word` through tantivy's lenient parser
//!   (malformed input is searched, never an error), `site:`, `lang:`, `kind:`, `after:` and
//!   `before:` as filters (`filters`); `synonyms`: a word searched with its synonyms; `user_fields` keeps what tantivy's grammar read to the fields a user may
//!   name; `analysis` cuts the query once per stemming the index holds; `lazy_union` moves
//!   a word's clauses only to the candidates the other words leave.
//! - `search`: [`Searcher`] asks every shard in three rounds, so shards answer as one index
//!   would, and follows new generations and commits without a restart: `stats` sums the
//!   term statistics; `merge` merges the shards' best and folds copies and translations;
//!   `leaf`'s [`LocalShards`] answers for this process's shards (`shard`:
//!   one index directory and its loaded generation), `remote`'s [`RemoteLeaf`] for another
//!   process's, which `leaf_routes` serves (`searchd leaf`), to callers showing the
//!   `leaf_token` when one is set; `hit`: [`Hit`] and
//!   [`QuerySpec`], what crosses the wire; `results`: [`SearchResults`]; `answers`: the
//!   answers of recent searches, kept; `recent`: a bounded map of recent work.
//! - Ranking: BM25 across fields times the link signals and priors, namesakes and repeats
//!   of one host demoted (`ranking`); `rerank`: the query's bonuses scored over each shard's
//!   best only; `columns`: the fast-field columns every query reads, opened once per
//!   searcher; `top`: the collector a shard's best are chosen by (best first, or newest
//!   first for `sort=date`); `summary`: what the merge needs of a shard's best, from fast
//!   fields;
//!   `facets`: the matches counted by language; `accept_language`: the languages a browser
//!   asks for ([`Preferred`]), which decide how translations show; `breakdown`: a score
//!   split by field (`explain=1`).
//! - `snippet`: the passage shown under a result, its terms marked, cut from the stored
//!   fields as `stored` reads and lends them; `suggest`: "did you mean"; `complete`: the
//!   phrases `/suggest` offers as a searcher types, each shard's merged; `similar`: the
//!   pages like a page (`/similar?url=`), by the words that say most about it.
//! - `render`: the escaping HTML templates; `display`: web text fit to show (no
//!   bidirectional overrides or hidden controls, cut to a length).
//! - `images`: [`Searcher::search_images`] over each generation's image index
//!   (`shard/image_index.rs`, opened and reloaded with the page index): the words over alt
//!   text, page titles, surrounding words and file names (`images/query.rs`, with the size
//!   and format filters), times a quality prior (`images/prior.rs`: tiny, blocky or
//!   unthumbnailed images ranked down), one result per picture (`images/search.rs`);
//!   `images/handlers.rs` and `images/render.rs` serve `/images`, `/api/images` and the
//!   thumbnails at `/thumb/HASH`.
//! - `cache`, `status` and `explain`: the pages that read the store (`cached_html` makes a
//!   stored page fit to show: links absolute or inert, nothing active); `error`: every
//!   failure mapped to a status and a friendly answer in one place; the search core's own
//!   [`SearchError`] (`search_error`) knows nothing of HTTP.
//!
//! Tests: `routes_tests` (the server over a real socket), `search_tests` (the searcher over
//! real indexes), `sharded_tests` (shards and remote leaves against one index),
//! `cached_html_tests` (the rewriter, case by case), and `images/tests.rs`,
//! `images/coverage_tests.rs`, `images/routes_tests.rs`; their indexes are written by
//! `testutil` and `images/testutil.rs`.
//!
//! [`serve`] runs the server on a listener until a shutdown future completes, so tests start
//! the real server in-process on port 0; [`run`] does the same with a [`Searcher`] already
//! opened. Searching without the server:
//!
//! ```
//! # fn main() -> Result<(), gateway::SearchError> {
//! let data = tempfile::tempdir().expect("temporary directory");
//! let searcher = gateway::Searcher::open(data.path(), Default::default())?;
//! // An empty query needs no index: it asks the user to type something.
//! assert!(searcher.search("  ", 1, 10)?.nothing_to_search);
//! // Until the indexer has built an index, searches answer "no index yet" (HTTP 503).
//! assert!(matches!(searcher.search("heron", 1, 10), Err(gateway::SearchError::NoIndex)));
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod accept_language;
mod analysis;
mod answers;
mod breakdown;
mod cache;
mod cached_html;
mod columns;
mod complete;
mod display;
mod error;
mod explain;
mod facets;
mod filters;
mod form;
mod handlers;
mod hedge;
mod hit;
mod images;
mod latency;
mod lazy_union;
mod leaf;
mod leaf_ca;
mod leaf_routes;
mod leaf_token;
mod merge;
mod metrics;
mod query;
mod ranking;
mod recent;
mod remote;
mod render;
mod replica;
mod replicas;
mod rerank;
mod results;
mod routes;
mod search;
mod search_error;
mod shard;
mod similar;
mod snippet;
mod stats;
mod status;
mod stored;
mod suggest;
mod summary;
mod synonyms;
mod top;
mod user_fields;

#[cfg(test)]
mod operations_tests;
#[cfg(test)]
mod replicas_tests;
#[cfg(test)]
mod routes_tests;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod sharded_tests;
#[cfg(test)]
mod testutil;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use accept_language::Preferred;
pub use complete::CompleteRequest;
pub use error::AppError;
pub use explain::UrlReport;
pub use handlers::{AppState, results_json};
pub use hit::{Hit, QuerySpec, Ranking, SimilarTo, TermsRequest, Translation};
pub use images::handlers::images_json;
pub use images::query::{FilterError, ImageRequest};
pub use images::search::{ImageHit, ImageResults, thumbnail_path};
pub use leaf::{DocumentRequest, HitsRequest, LocalShards, TopAnswer, TopHit, TopRequest};
pub use leaf_ca::LeafCa;
pub use leaf_token::LeafToken;
pub use metrics::GatewayMetrics;
pub use query::UserQuery;
pub use remote::RemoteLeaf;
pub use render::urlencode;
pub use replicas::{GroupState, LeafGroup, Pending, REPLICA_SEPARATOR, ReplicaState};
pub use search::{SearchResults, Searcher};
pub use search_error::SearchError;
pub use service::Limits;
pub use shard::IndexFacts;
pub use similar::SIMILAR_WORDS;
pub use snippet::Snippet;
pub use stats::{Hosts, ShardStats};
pub use status::StatusReport;

/// How often the server looks for a new index generation.
pub const RELOAD_EVERY: Duration = Duration::from_secs(1);

/// Serves search over the index of `data` on `listener` until `shutdown` completes, with
/// the ranking and `searchd` settings of `config`. Fails only when the index named by
/// `DATA/index/CURRENT` cannot be opened; no index at all is fine (searches answer 503 until
/// the indexer builds one). A partitioned `data` is served over every partition's shard.
pub async fn serve(
    listener: tokio::net::TcpListener,
    data: PathBuf,
    config: shared::Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    serve_root(listener, data, Vec::new(), config, shutdown).await
}

/// [`serve`], asking the remote leaves at `leaves` (the `http://host:port` of each
/// `searchd leaf`, or replicas of the same shards as `URL1|URL2`) beside the local shards,
/// each within `[searchd] leaf_timeout_ms`; every replica is sent the leaf token. A leaf
/// address that is not an http URL is an error; a leaf that does not answer is not.
pub async fn serve_root(
    listener: tokio::net::TcpListener,
    data: PathBuf,
    leaves: Vec<String>,
    config: shared::Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    let runtime = tokio::runtime::Handle::current();
    let token = leaf_token(&config.searchd)?;
    let ca = config
        .searchd
        .leaf_ca_file
        .as_deref()
        .map(LeafCa::read)
        .transpose()
        .map_err(AppError::Config)?;
    let remotes = leaves
        .iter()
        .map(|spec| {
            LeafGroup::parse(spec, |url| {
                RemoteLeaf::new(
                    url,
                    config.searchd.leaf_timeout,
                    runtime.clone(),
                    ca.as_ref(),
                )
                .map(|leaf| leaf.with_token(token.clone()))
            })
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(AppError::BadRequest)?;
    let listener = with_tls(listener, &config.searchd)?;
    let state = open_state(data, &config).await?;
    let state = AppState {
        searcher: state.searcher.with_leaves(remotes),
        ..state
    };
    let limits = limits(&config.searchd);
    run(listener, Arc::new(state), limits, shutdown).await;
    Ok(())
}

/// Serves the shards of `data` to remote roots (`searchd leaf`): the `/leaf/...` routes
/// only (see `leaf_routes`), until `shutdown` completes.
pub async fn serve_leaf(
    listener: tokio::net::TcpListener,
    data: PathBuf,
    config: shared::Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    let token = leaf_token(&config.searchd)?;
    if token.is_none() {
        tracing::warn!(
            "this leaf answers any caller: set [searchd] leaf_token_file (and the same on its roots), or keep it on a private network"
        );
    }
    let listener = with_tls(listener, &config.searchd)?;
    let state = open_state(data, &config).await?.with_leaf_token(token);
    let limits = limits(&config.searchd);
    run_leaf(listener, Arc::new(state), limits, shutdown).await;
    Ok(())
}

/// The token of `[searchd] leaf_token_file`, if set; a file that cannot be used stops the
/// server with one line saying why.
fn leaf_token(config: &shared::config::SearchdConfig) -> Result<Option<LeafToken>, AppError> {
    config
        .leaf_token_file
        .as_deref()
        .map(LeafToken::read)
        .transpose()
        .map_err(AppError::Config)
}

/// `listener`, answering HTTPS with `[searchd] tls_cert_file` and `tls_key_file` when set;
/// files that cannot be used stop the server with one line saying why.
fn with_tls(
    listener: tokio::net::TcpListener,
    config: &shared::config::SearchdConfig,
) -> Result<service::Listener, AppError> {
    let tls = config
        .tls
        .as_ref()
        .map(|files| service::ServerTls::from_pem_files(&files.cert, &files.key))
        .transpose()
        .map_err(AppError::Config)?;
    Ok(service::Listener::from(listener).with_tls(tls))
}

/// The handlers' state over the shards of `data`, opened off the async threads.
async fn open_state(data: PathBuf, config: &shared::Config) -> Result<AppState, AppError> {
    let ranking = config.ranking.clone();
    let searcher = tokio::task::spawn_blocking(move || Searcher::open(&data, ranking))
        .await??
        .with_max_query_len(config.searchd.max_query_len.get())
        .with_answer_cache(config.searchd.answer_cache)
        .with_synonyms(config.searchd.synonyms.clone())?;
    Ok(AppState::new(searcher, &config.searchd))
}

/// [`run`] for a leaf: `state`'s shards on the `/leaf/...` routes, reloaded as [`run`] does.
pub async fn run_leaf(
    listener: impl Into<service::Listener>,
    state: Arc<AppState>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let reloader = tokio::spawn(reload_loop(Arc::clone(&state)));
    let http = state.metrics.http.clone();
    let routes = leaf_routes::leaf_routes(state);
    let overloaded = routes::overloaded;
    service::server::serve(listener, routes, limits, overloaded, Some(http), shutdown).await;
    reloader.abort();
}

/// Serves `state` on `listener` within `limits` until `shutdown` completes, checking every
/// [`RELOAD_EVERY`] for a new index generation. Connections in flight are finished first.
pub async fn run(
    listener: impl Into<service::Listener>,
    state: Arc<AppState>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let reloader = tokio::spawn(reload_loop(Arc::clone(&state)));
    let http = state.metrics.http.clone();
    let routes = routes::routes(state);
    let overloaded = routes::overloaded;
    service::server::serve(listener, routes, limits, overloaded, Some(http), shutdown).await;
    reloader.abort();
}

/// The bounds of a server with the `[searchd]` settings `config`.
pub fn limits(config: &shared::config::SearchdConfig) -> Limits {
    Limits {
        max_connections: config.max_connections.get(),
        header_timeout: config.header_timeout,
        request_timeout: config.request_timeout,
    }
}

/// Calls [`Searcher::refresh`] forever, logging each new failure once, and then sets the
/// index gauges and probes the remote leaves (see `remote::LeafHealth`).
async fn reload_loop(state: Arc<AppState>) {
    let mut last_error = None;
    observe(&state).await;
    loop {
        tokio::time::sleep(RELOAD_EVERY).await;
        let refreshing = Arc::clone(&state);
        let refreshed = tokio::task::spawn_blocking(move || refreshing.searcher.refresh()).await;
        let error = match refreshed {
            Ok(Ok(_)) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(error) => Some(error.to_string()),
        };
        if error.is_some() && error != last_error {
            tracing::warn!(
                error = error.as_deref(),
                "cannot load the new index generation; still serving the old one"
            );
        }
        last_error = error;
        observe(&state).await;
    }
}

/// Probes every remote leaf (each replica of each group) at once, each within the leaf
/// timeout, and sets the index gauges of the generations loaded.
async fn observe(state: &Arc<AppState>) {
    let probes: Vec<_> = state
        .searcher
        .leaves()
        .iter()
        .flat_map(|group| group.leaves().cloned())
        .map(|leaf| tokio::spawn(async move { leaf.probe().await }))
        .collect();
    for probe in probes {
        let _ = probe.await;
    }
    let state = Arc::clone(state);
    let _ = tokio::task::spawn_blocking(move || {
        state.metrics.observe_index(state.searcher.local());
    })
    .await;
}
