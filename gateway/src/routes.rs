//! The HTTP surface as warp filters.
//!
//! | route | answer |
//! |---|---|
//! | `GET /` | the search form |
//! | `GET /search?q=&page=`, `POST /search` (form `q=`) | HTML results |
//! | `GET /api/search?q=&page=&per_page=[&explain=1]` | JSON results |
//! | `GET /images?q=&page=&min_width=&min_height=&format=` | the image results grid |
//! | `GET /api/images?q=&page=&per_page=&min_width=&min_height=&format=` | JSON image results |
//! | `GET /thumb/HASH` | a stored thumbnail (JPEG), by its image's content hash |
//! | `GET /cache?url=` | the stored copy, sandboxed |
//! | `GET /explain?url=` | why a URL is or is not searchable (HTML or JSON) |
//! | `GET /status` | index and crawl figures (HTML, or JSON: `?format=json` / `Accept`) |
//! | `GET /opensearch.xml` | the OpenSearch description |
//! | `GET /suggest?q=PREFIX` | completions, in the OpenSearch suggestions format |
//! | `GET /similar?url=` | HTML results: the pages like an indexed page |
//! | `GET /api/similar?url=&per_page=` | the same in JSON, with `similar_to` |
//! | `GET /metrics` | Prometheus metrics, the text format (see `crate::metrics`) |
//! | `GET /healthz` | 200 `ok` while the process answers |
//! | `GET /readyz` | 200 when it can answer searches, else 503, with a one-line reason |
//!
//! Everything under `/api` fails in JSON, everything else with an HTML page; both through
//! [`crate::error`]. Every answer carries [`secured`]'s headers: a Content-Security-Policy
//! ([`PAGE_CSP`]: `img-src 'self'`, the thumbnails being ours; a cached copy sets its own),
//! `nosniff`, `no-referrer` and `X-Frame-Options: DENY`.

use std::convert::Infallible;
use std::sync::Arc;

use warp::Filter;
use warp::reply::{Reply, Response};

use warp::http::HeaderValue;

use crate::accept_language::Preferred;
use crate::error::{AppError, Format, answer, recover_html, recover_json, reject};
use crate::handlers::{self, AppState, PAGE_CSP, Params};
use crate::images::handlers as image_handlers;

/// Every route of the server, with errors already turned into answers.
pub fn routes(
    state: Arc<AppState>,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone {
    let state = warp::any().map(move || Arc::clone(&state));
    let operations = operations(state.clone());
    let query = warp::query::<Params>();
    let accept = warp::header::optional::<String>("accept");
    let languages = warp::header::optional::<String>("accept-language")
        .map(|header: Option<String>| Preferred::from_header(header.as_deref()));

    let home = warp::path::end()
        .and(warp::get())
        .and(state.clone())
        .and_then(handlers::home);
    let search_get = warp::path!("search").and(warp::get()).and(query);
    let search_post = warp::path!("search")
        .and(warp::post())
        .and(crate::form::form::<Params>());
    let search = search_get
        .or(search_post)
        .unify()
        .and(languages)
        .and(state.clone())
        .and_then(handlers::search_page);
    let cache = warp::path!("cache")
        .and(warp::get())
        .and(query)
        .and(state.clone())
        .and_then(handlers::cache);
    let explain = warp::path!("explain")
        .and(warp::get())
        .and(query)
        .and(accept)
        .and(state.clone())
        .and_then(handlers::explain);
    let status = warp::path!("status")
        .and(warp::get())
        .and(query)
        .and(accept)
        .and(state.clone())
        .and_then(handlers::status);
    let opensearch = warp::path!("opensearch.xml")
        .and(warp::get())
        .and(warp::header::optional::<String>("host"))
        .map(handlers::opensearch);
    let suggest = warp::path!("suggest")
        .and(warp::get())
        .and(warp::query::raw().or(warp::any().map(String::new)).unify())
        .and(state.clone())
        .and_then(handlers::suggest);
    let similar = warp::path!("similar")
        .and(warp::get())
        .and(query)
        .and(languages)
        .and(state.clone())
        .and_then(handlers::similar_page);
    let api_similar = warp::path!("similar")
        .and(warp::get())
        .and(query)
        .and(languages)
        .and(state.clone())
        .and_then(handlers::similar_api);
    let images = warp::path!("images")
        .and(warp::get())
        .and(query)
        .and(state.clone())
        .and_then(image_handlers::images_page);
    let thumb = warp::path!("thumb" / String)
        .and(warp::get())
        .and(state.clone())
        .and_then(image_handlers::thumb);
    let api_search = warp::path!("search")
        .and(warp::get())
        .and(query)
        .and(languages)
        .and(state.clone())
        .and_then(handlers::search_api);
    let api_images = warp::path!("images")
        .and(warp::get())
        .and(query)
        .and(state)
        .and_then(image_handlers::images_api);
    let api = warp::path("api").and(
        api_search
            .or(api_images)
            .unify()
            .or(api_similar)
            .unify()
            .recover(recover_json)
            .unify(),
    );

    let pages = home
        .or(search)
        .unify()
        .or(cache)
        .unify()
        .or(explain)
        .unify()
        .or(status)
        .unify()
        .or(opensearch)
        .unify()
        .or(suggest)
        .unify()
        .or(similar)
        .unify()
        .or(images)
        .unify()
        .or(thumb)
        .unify()
        .or(operations)
        .unify();
    api.or(pages)
        .unify()
        .recover(recover_html)
        .unify()
        .map(|reply: Response| secured(reply.into_response()))
}

/// `/metrics`, `/healthz` and `/readyz`: what a monitoring system and a load balancer ask, on
/// a root and on a leaf alike.
pub(crate) fn operations(
    state: impl Filter<Extract = (Arc<AppState>,), Error = Infallible> + Clone + Send + Sync + 'static,
) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .and(state.clone())
        .map(|state: Arc<AppState>| service::metrics::answer(state.metrics.registry()));
    let healthz = warp::path!("healthz")
        .and(warp::get())
        .map(service::health::alive);
    let readyz = warp::path!("readyz")
        .and(warp::get())
        .and(state)
        .map(|state: Arc<AppState>| state.readiness().answer());
    metrics.or(healthz).unify().or(readyz).unify()
}

/// `response` with the headers every answer carries (those it already has are kept: a
/// cached copy sets its own policy): [`PAGE_CSP`], no MIME sniffing, no referrer, and no
/// framing (also as `X-Frame-Options`, for browsers older than CSP's `frame-ancestors`).
pub fn secured(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-security-policy", PAGE_CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
    ] {
        if !headers.contains_key(name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    response
}

/// The answer to a request that ran out of time (see `service::server`): `503`, as JSON
/// under `/api`, else as a page.
pub fn overloaded(path: &str) -> Response {
    let format = if path.starts_with("/api/") {
        Format::Json
    } else {
        Format::Html
    };
    let mut response = secured(answer(&reject(AppError::Busy), format));
    response
        .headers_mut()
        .insert("retry-after", HeaderValue::from_static("1"));
    response
}
