//! The routes of `searchd leaf`: this process's shards answering a remote root
//! ([`crate::Searcher`] with `--leaf URL`). Every route takes and answers JSON, by `POST`:
//!
//! | route | body | answer |
//! |---|---|---|
//! | `/leaf/stats` | `QuerySpec` `{"text", "matching", "ranking"}` | `ShardStats`: documents, tokens per field, documents per term, hosts |
//! | `/leaf/top` | `TopRequest` `{"spec", "stats", "limit", "hosts"}` | `TopAnswer` `{"total", "hits": [{"score", "shard", "url", "host", "name", "simhash"}]}` |
//! | `/leaf/hits` | `HitsRequest` `{"spec", "stats", "wanted": [[shard, url]], "explain"}` | `[Hit]`, with snippets |
//! | `/leaf/document` | `{"url", "copies"}` | a `Hit` or `null` |
//! | `/leaf/cache` | `{"url"}` | `CopyAnswer`: `{"Found": {...}}`, `{"NotFound": why}`, ... |
//! | `/leaf/complete` | `CompleteRequest` `{"prefix", "limit"}` | `[{"phrase", "weight"}]`, the shards' best completions |
//! | `/leaf/terms` | `TermsRequest` `{"url"}` | `SimilarTo` `{"url", "title", "words", "simhash"}` of the page, or `null` |
//! | `GET /leaf/status` | | `{"generation", "docs"}` of the shards |
//!
//! Beside them, as on a root: `GET /metrics`, `/healthz` and `/readyz` (ready once a
//! generation is loaded).
//!
//! Failures answer in JSON with a status, as `/api` does (503 while no shard has an index).
//! A leaf listens where it is told. With `[searchd] leaf_token_file` every `/leaf/...` call
//! must show the token (`Authorization: Bearer TOKEN`, as a root with the same file sends
//! it), else it is answered a bare 401; without it a leaf answers anyone, so keep it on a
//! private network. `/metrics`, `/healthz` and `/readyz` answer anyone either way.

use std::convert::Infallible;
use std::sync::Arc;

use serde::Deserialize;
use warp::Filter;
use warp::reply::{Reply, Response};

use crate::cache::{CopyAnswer, copy_in_any};
use crate::complete::CompleteRequest;
use crate::error::{AppError, recover_json, reject};
use crate::handlers::{AppState, blocking};
use crate::hit::{QuerySpec, TermsRequest};
use crate::leaf::{DocumentRequest, HitsRequest, LocalShards, TopRequest};
use crate::leaf_token::LeafToken;
use crate::search_error::SearchError;

/// Largest request body a leaf reads.
const MAX_BODY_BYTES: u64 = 4 << 20;

/// `/leaf/cache`'s body.
#[derive(Deserialize)]
struct CacheRequest {
    url: String,
}

/// Every route of a leaf, with errors turned into JSON answers.
pub fn leaf_routes(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let token = state.leaf_token.clone();
    let state = warp::any().map(move || Arc::clone(&state));
    let operations = crate::routes::operations(state.clone());
    let body = || warp::post().and(warp::body::content_length_limit(MAX_BODY_BYTES));
    let stats = warp::path!("stats")
        .and(body())
        .and(warp::body::json::<QuerySpec>())
        .and(state.clone())
        .and_then(|spec: QuerySpec, state: Arc<AppState>| async move {
            let stats = blocking(&state, move |s| indexed(s)?.stats(&spec)).await?;
            Ok::<_, warp::Rejection>(json(&stats))
        });
    let top = warp::path!("top")
        .and(body())
        .and(warp::body::json::<TopRequest>())
        .and(state.clone())
        .and_then(|request: TopRequest, state: Arc<AppState>| async move {
            let top = blocking(&state, move |s| indexed(s)?.top(&request)).await?;
            Ok::<_, warp::Rejection>(json(&top))
        });
    let hits = warp::path!("hits")
        .and(body())
        .and(warp::body::json::<HitsRequest>())
        .and(state.clone())
        .and_then(|request: HitsRequest, state: Arc<AppState>| async move {
            let hits = blocking(&state, move |s| indexed(s)?.hits(&request)).await?;
            Ok::<_, warp::Rejection>(json(&hits))
        });
    let document = warp::path!("document")
        .and(body())
        .and(warp::body::json::<DocumentRequest>())
        .and(state.clone())
        .and_then(
            |request: DocumentRequest, state: Arc<AppState>| async move {
                let found = blocking(&state, move |s| {
                    match s.searcher.local().document(&request.url, request.copies) {
                        Err(SearchError::NoIndex) => Ok(None),
                        other => other,
                    }
                })
                .await?;
                Ok::<_, warp::Rejection>(json(&found))
            },
        );
    let cache = warp::path!("cache")
        .and(body())
        .and(warp::body::json::<CacheRequest>())
        .and(state.clone())
        .and_then(|request: CacheRequest, state: Arc<AppState>| async move {
            let answer = blocking(&state, move |s| {
                CopyAnswer::of(copy_in_any(&s.searcher.data_dirs(), &request.url))
            })
            .await?;
            Ok::<_, warp::Rejection>(json(&answer))
        });
    let complete = warp::path!("complete")
        .and(body())
        .and(warp::body::json::<CompleteRequest>())
        .and(state.clone())
        .and_then(
            |request: CompleteRequest, state: Arc<AppState>| async move {
                let found = blocking(&state, move |s| {
                    Ok::<_, AppError>(s.searcher.local().complete(&request.prefix, request.limit))
                })
                .await?;
                Ok::<_, warp::Rejection>(json(&found))
            },
        );
    let terms = warp::path!("terms")
        .and(body())
        .and(warp::body::json::<TermsRequest>())
        .and(state.clone())
        .and_then(|request: TermsRequest, state: Arc<AppState>| async move {
            let found =
                blocking(&state, move |s| s.searcher.local().terms_of(&request.url)).await?;
            Ok::<_, warp::Rejection>(json(&found))
        });
    let status = warp::path!("status").and(warp::get()).and(state).and_then(
        |state: Arc<AppState>| async move {
            let facts = blocking(&state, |s| {
                Ok::<_, AppError>(
                    s.searcher
                        .index_facts()
                        .map(|f| serde_json::json!({"generation": f.generation, "docs": f.docs})),
                )
            })
            .await?;
            Ok::<_, warp::Rejection>(json(&facts))
        },
    );
    warp::path("leaf")
        .and(authorized(token))
        .and(
            stats
                .or(top)
                .unify()
                .or(hits)
                .unify()
                .or(document)
                .unify()
                .or(cache)
                .unify()
                .or(complete)
                .unify()
                .or(terms)
                .unify()
                .or(status)
                .unify(),
        )
        .or(operations)
        .unify()
        .recover(recover_json)
        .unify()
        .map(|reply: Response| crate::routes::secured(reply.into_response()))
}

/// Passes a call showing `token` (every call when there is none); refuses any other with a
/// bare 401.
fn authorized(
    token: Option<LeafToken>,
) -> impl Filter<Extract = (), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("authorization")
        .and_then(move |header: Option<String>| {
            let admitted = token.as_ref().is_none_or(|t| t.admits(header.as_deref()));
            async move {
                if admitted {
                    Ok(())
                } else {
                    Err(reject(AppError::Unauthorized))
                }
            }
        })
        .untuple_one()
}

/// The leaf's shards, or [`SearchError::NoIndex`] (a 503) while none has an index: a root
/// then counts the leaf missing, or asks another replica, where empty answers would leave
/// its shards out of every answer unsaid.
fn indexed(state: &AppState) -> Result<&LocalShards, SearchError> {
    let local = state.searcher.local();
    local.facts().map(|_| local).ok_or(SearchError::NoIndex)
}

fn json(value: &impl serde::Serialize) -> Response {
    warp::reply::json(value).into_response()
}
