//! The HTTP surface: warp filters, their handlers, and the mapping of every failure to a
//! friendly answer with the right status.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;

use maud::Markup;
use serde_json::json;
use shared::{CanonicalUrl, StoreReader};
use warp::http::StatusCode;
use warp::reply::{Reply, Response};
use warp::{Filter, Rejection};

use crate::error::AppError;
use crate::render;
use crate::search::{SearchResults, Searcher};

/// What the handlers share.
pub struct AppState {
    /// The index.
    pub searcher: Searcher,
    /// Results per page on HTML pages.
    pub per_page: usize,
}

type Params = HashMap<String, String>;

/// Every route of the server.
pub fn routes(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let with_state = warp::any().map(move || Arc::clone(&state));
    let home = warp::path::end()
        .and(warp::get())
        .and(with_state.clone())
        .map(|s: Arc<AppState>| {
            html(
                StatusCode::OK,
                render::home(s.searcher.index_facts().map(|(_, docs)| docs)),
            )
        });
    let search_get = warp::path!("search")
        .and(warp::get())
        .and(warp::query::<Params>());
    let search_post = warp::path!("search")
        .and(warp::post())
        .and(warp::body::content_length_limit(16 * 1024))
        .and(warp::body::form::<Params>());
    let search = search_get
        .or(search_post)
        .unify()
        .and(with_state.clone())
        .map(search_html);
    let api = warp::path!("api" / "search")
        .and(warp::get())
        .and(warp::query::<Params>())
        .and(with_state.clone())
        .map(search_json);
    let cache = warp::path!("cache")
        .and(warp::get())
        .and(warp::query::<Params>())
        .and(with_state.clone())
        .then(cache);
    let status = warp::path!("status")
        .and(warp::get())
        .and(warp::query::<Params>())
        .and(warp::header::optional::<String>("accept"))
        .and(with_state)
        .then(status);
    let opensearch = warp::path!("opensearch.xml")
        .and(warp::get())
        .and(warp::header::optional::<String>("host"))
        .map(opensearch);
    home.or(search)
        .unify()
        .or(api)
        .unify()
        .or(cache)
        .unify()
        .or(status)
        .unify()
        .or(opensearch)
        .unify()
        .recover(recover)
        .unify()
}

fn html(status: StatusCode, page: Markup) -> Response {
    warp::reply::with_status(warp::reply::html(page.into_string()), status).into_response()
}

fn json_reply(status: StatusCode, value: &serde_json::Value) -> Response {
    warp::reply::with_status(warp::reply::json(value), status).into_response()
}

fn page_params(params: &Params, default_per_page: usize) -> (String, usize, usize) {
    let query = params.get("q").cloned().unwrap_or_default();
    let page = params
        .get("page")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or(1);
    let per_page = params
        .get("per_page")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or(default_per_page);
    (query, page, per_page)
}

fn search_html(params: Params, state: Arc<AppState>) -> Response {
    let (query, page, per_page) = page_params(&params, state.per_page);
    if query.trim().is_empty() {
        return html(
            StatusCode::OK,
            render::home(state.searcher.index_facts().map(|(_, d)| d)),
        );
    }
    match state.searcher.search(&query, page, per_page) {
        Ok(results) => html(StatusCode::OK, render::results(&results)),
        Err(error) => html_error(&query, &error),
    }
}

fn html_error(query: &str, error: &AppError) -> Response {
    if error.status() == StatusCode::INTERNAL_SERVER_ERROR {
        tracing::error!(%error, "request failed");
    }
    let title = match error {
        AppError::EmptyQuery => "Nothing to search for",
        AppError::NoIndex => "No index yet",
        AppError::NotFound(_) => "Not found",
        AppError::Forbidden(_) => "Not available",
        AppError::BadRequest(_) => "Bad request",
        _ => "Something went wrong",
    };
    let message = if error.status() == StatusCode::INTERNAL_SERVER_ERROR {
        "The server failed to answer; the error is in its log.".to_string()
    } else {
        error.to_string()
    };
    html(error.status(), render::problem(query, title, &message))
}

fn json_error(error: &AppError) -> Response {
    json_reply(error.status(), &json!({ "error": error.to_string() }))
}

/// The JSON answer of `/api/search`.
pub fn results_json(results: &SearchResults) -> serde_json::Value {
    json!({
        "query": results.query,
        "total": results.total,
        "took_ms": results.took_ms,
        "page": results.page,
        "hits": results.hits.iter().map(|hit| json!({
            "url": hit.url,
            "title": hit.title,
            "snippet": hit.snippet.text,
            "score": hit.score,
        })).collect::<Vec<_>>(),
    })
}

fn search_json(params: Params, state: Arc<AppState>) -> Response {
    let (query, page, per_page) = page_params(&params, state.per_page);
    match state.searcher.search(&query, page, per_page) {
        Ok(results) => json_reply(StatusCode::OK, &results_json(&results)),
        Err(error) => json_error(&error),
    }
}

async fn cache(params: Params, state: Arc<AppState>) -> Response {
    let Some(url) = params.get("url").cloned() else {
        return html_error("", &AppError::BadRequest("give the page with ?url=".into()));
    };
    let data = state.searcher.data().to_path_buf();
    let found = tokio::task::spawn_blocking(move || -> Result<shared::PageRecord, AppError> {
        let canonical =
            CanonicalUrl::parse(&url).map_err(|e| AppError::BadRequest(e.to_string()))?;
        let store = StoreReader::open(&data)?;
        let page = store
            .page(canonical.as_str())?
            .ok_or_else(|| AppError::NotFound(format!("no stored copy of {canonical}")))?;
        if page.robots.noarchive {
            return Err(AppError::Forbidden(
                "the site asked that no cached copy be shown (noarchive)".into(),
            ));
        }
        Ok(page)
    })
    .await;
    match found {
        Ok(Ok(page)) => match page.body.decompress() {
            Ok(body) => html(
                StatusCode::OK,
                render::cache(&page.url, &format_time(page.fetched_at_ms), &body),
            ),
            Err(e) => html_error("", &AppError::Record(e)),
        },
        Ok(Err(error)) => html_error("", &error),
        Err(_) => html_error(
            "",
            &AppError::NotFound("the store could not be read".into()),
        ),
    }
}

fn format_time(ms: u64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms))
        .to_string()
}

async fn status(params: Params, accept: Option<String>, state: Arc<AppState>) -> Response {
    let data = state.searcher.data().to_path_buf();
    let store = tokio::task::spawn_blocking(move || {
        let store = StoreReader::open(&data).ok()?;
        Some((store.counters().ok()?.pages_stored, store.frontier_len()))
    })
    .await
    .ok()
    .flatten();
    let index = state.searcher.index_facts();
    let wants_json = params.get("format").is_some_and(|f| f == "json")
        || accept.is_some_and(|a| a.contains("application/json"));
    if wants_json {
        return json_reply(
            StatusCode::OK,
            &json!({
                "index": index.as_ref().map(|(generation, docs)| json!({"generation": generation, "documents": docs})),
                "store": store.map(|(pages, frontier)| json!({"pages_stored": pages, "frontier": frontier})),
            }),
        );
    }
    let mut facts = vec![(
        "data directory",
        state.searcher.data().display().to_string(),
    )];
    match index {
        Some((generation, docs)) => {
            facts.push(("index generation", generation));
            facts.push(("documents", docs.to_string()));
        }
        None => facts.push(("index", "none yet".into())),
    }
    match store {
        Some((pages, frontier)) => {
            facts.push(("pages stored", pages.to_string()));
            facts.push(("frontier", frontier.to_string()));
        }
        None => facts.push(("store", "not readable".into())),
    }
    html(StatusCode::OK, render::status(&facts))
}

fn opensearch(host: Option<String>) -> Response {
    let host = host
        .filter(|h| {
            h.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".:-[]".contains(c))
        })
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    let xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
  <ShortName>sift</ShortName>
  <Description>Search the pages sift crawled</Description>
  <InputEncoding>UTF-8</InputEncoding>
  <Url type="text/html" method="get" template="http://{host}/search?q={{searchTerms}}"/>
  <Url type="application/json" method="get" template="http://{host}/api/search?q={{searchTerms}}"/>
</OpenSearchDescription>
"#
    );
    warp::reply::with_header(xml, "content-type", "application/opensearchdescription+xml")
        .into_response()
}

async fn recover(rejection: Rejection) -> Result<Response, Infallible> {
    let (status, message) = if rejection.is_not_found() {
        (StatusCode::NOT_FOUND, "There is no page here.")
    } else if rejection.find::<warp::reject::MethodNotAllowed>().is_some() {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            "That method is not allowed here.",
        )
    } else if rejection.find::<warp::reject::PayloadTooLarge>().is_some() {
        (StatusCode::PAYLOAD_TOO_LARGE, "The request is too large.")
    } else {
        (
            StatusCode::BAD_REQUEST,
            "The request could not be understood.",
        )
    };
    Ok(html(status, render::problem("", "Not here", message)))
}
